import Foundation
import HearthRuntime
import Logging

/// Deletes credentials nobody can use any more: expired refresh tokens and long-ended or idle
/// sessions (`AuthSessions.sweep`), webhook secrets a rotation superseded
/// (`WebhookSecretStore.sweepSuperseded`), and deletion codes long expired
/// (`AccountDeletionCodes.sweepExpired`). Every gateway runs it; the deletes are idempotent.
struct SpentCredentialSweeper: Sendable {
    let sessions: AuthSessions
    let webhookSecrets: WebhookSecretStore?
    let deletionCodes: AccountDeletionCodes?
    let logger: Logger

    func service(every interval: Duration) -> PeriodicService {
        PeriodicService("sweeping spent credentials", every: interval, logger: logger) {
            try await sessions.sweep()
            try await webhookSecrets?.sweepSuperseded()
            try await deletionCodes?.sweepExpired()
        }
    }
}
