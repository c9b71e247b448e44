import Foundation
import HearthPrivacy
import Logging
import PostgresNIO

/// The gateway's side of webhook secrets (`webhook_secrets`): seals each new secret with
/// `SecretBox` and stores it under a fresh reference, the only thing the events carry.
struct WebhookSecretStore: Sendable {
    let client: PostgresClient
    let box: SecretBox
    let logger: Logger

    /// Seals and stores `secret` for `webhook`; answers the reference to publish.
    func store(_ secret: String, webhook: UUID, user: UUID) async throws -> UUID {
        let ref = UUID()
        let sealed = try box.seal(secret, context: SecretBox.webhookSecretContext(webhook: webhook, ref: ref))
        try await client.query(
            "INSERT INTO webhook_secrets (secret_ref, webhook_id, user_id, sealed) VALUES (\(ref), \(webhook), \(user), \(sealed))", logger: logger)
        return ref
    }

    /// Removes the webhook's secrets but `keeping` (the one its latest event names).
    func removeSecrets(of webhook: UUID, keeping: UUID? = nil) async throws {
        if let keeping {
            try await client.query("DELETE FROM webhook_secrets WHERE webhook_id = \(webhook) AND secret_ref <> \(keeping)", logger: logger)
        } else {
            try await client.query("DELETE FROM webhook_secrets WHERE webhook_id = \(webhook)", logger: logger)
        }
    }
}
