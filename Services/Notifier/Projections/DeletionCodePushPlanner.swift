import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// The push of an account deletion code (`user.deletion_code_issued`), planned inside the
/// `reminders` projection: one urgent reminder to the user's devices only (`apns`: never the
/// inbox or a webhook, which the token that asked could read), due at once, gone when the code
/// expires. The reminder id is the code's id; a newer code cancels the push of an older one still
/// waiting, and replaces it on the device (one collapse id for every code).
///
/// The row holds no digits: the dispatcher derives them from the code's id when it sends
/// (`AccountDeletionCode`), and the delivery log and `notification.sent` keep only `loggedTitle`.
/// A code that expired before it was applied (a rebuild, a notifier long down) plans nothing.
struct DeletionCodePushPlanner: Sendable {
    static let source = "account_deletion_code"
    static let eventTypes: Set<String> = [UserDeletionCodeIssued.eventType]
    static let title = "Delete your Hearth account?"
    /// What the delivery log and the outcome event keep of the push.
    static let loggedTitle = "Account deletion code"

    /// Whether `event` was the planner's (applied).
    func apply(_ event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        guard let issued = event.payload as? UserDeletionCodeIssued else { return false }
        // Only the newest code works: an older one's push still waiting would only waste a try.
        try await connection.query(
            """
            UPDATE reminders SET status = 'cancelled', updated_at = \(event.metadata.occurredAt), last_event_id = \(event.metadata.id)
            WHERE user_id = \(issued.userId) AND source = \(Self.source) AND status = 'pending' AND reminder_id <> \(issued.codeId)
              AND updated_at <= \(event.metadata.occurredAt)
            """, logger: logger)
        guard issued.expiresAt > Date() else { return true }
        try await connection.query(
            """
            INSERT INTO reminders (reminder_id, user_id, household_id, member_id, title, body, due_at, urgent, channels,
                                   source, status, updated_at, last_event_id, expires_at)
            VALUES (\(issued.codeId), \(issued.userId), NULL, NULL, \(Self.title), NULL, \(event.metadata.occurredAt), true, ARRAY['apns'],
                    \(Self.source), 'pending', \(event.metadata.occurredAt), \(event.metadata.id), \(issued.expiresAt))
            ON CONFLICT (reminder_id) DO NOTHING
            """, logger: logger)
        return true
    }
}
