import Foundation
import HearthPrivacy
import HearthRuntime
import Logging
import PostgresNIO

/// Seals the webhook secrets stored in plaintext before secrets were sealed (rows written before
/// migration 0012): each moves to `legacy_secret_sealed` and its plaintext is cleared. Runs at
/// start-up and then rarely; a row the projection rewrote meanwhile is left as it is now.
struct LegacyWebhookSecrets: Sendable {
    let client: PostgresClient
    let secrets: SecretBox
    let logger: Logger

    func service(every interval: Duration) -> PeriodicService {
        PeriodicService("sealing plaintext webhook secrets", every: interval, logger: logger) { try await sealPlaintext() }
    }

    /// Answers how many secrets it sealed.
    @discardableResult
    func sealPlaintext() async throws -> Int {
        var plaintext: [(UUID, String)] = []
        let rows = try await client.query("SELECT webhook_id, secret FROM notification_webhooks WHERE secret IS NOT NULL", logger: logger)
        for try await (webhook, secret) in rows.decode((UUID, String).self) { plaintext.append((webhook, secret)) }
        for (webhook, secret) in plaintext {
            let sealed = try secrets.seal(secret, context: SecretBox.webhookSecretContext(webhook: webhook, ref: nil))
            try await client.query(
                """
                UPDATE notification_webhooks SET legacy_secret_sealed = \(sealed), secret = NULL
                WHERE webhook_id = \(webhook) AND secret = \(secret)
                """, logger: logger)
        }
        if !plaintext.isEmpty { logger.notice("sealed plaintext webhook secrets", metadata: ["count": "\(plaintext.count)"]) }
        return plaintext.count
    }
}
