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

    /// Removes every secret of a removed webhook.
    func removeSecrets(of webhook: UUID) async throws {
        try await client.query("DELETE FROM webhook_secrets WHERE webhook_id = \(webhook)", logger: logger)
    }

    /// Deletes the secrets a later rotation superseded: those the notifier's row no longer names
    /// (it names the one of the webhook's latest event, whichever of two racing rotations that
    /// was), once they are an hour old, so a delivery signed just before a rotation was projected
    /// still finds its row; and those of webhooks the notifier no longer has (removed, or a
    /// registration whose event never went out).
    func sweepSuperseded() async throws {
        try await client.query(
            """
            DELETE FROM webhook_secrets s
            WHERE s.created_at < now() - interval '1 hour'
              AND NOT EXISTS (SELECT 1 FROM notification_webhooks w WHERE w.webhook_id = s.webhook_id AND w.secret_ref = s.secret_ref)
            """, logger: logger)
    }
}
