import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `notification_inbox`: the in-app inbox, one row per `notification.sent` on the `inbox`
/// channel, marked read by `notification.read`. The notification id is derived from the reminder
/// generation, so an outcome published twice (a crash between publishing and marking it
/// published) is still one row.
///
/// `user.erased` empties the user's inbox. The users topic comes last: a rebuild reads archived
/// history topic by topic in this order, so the erasure lands after the notifications it
/// rebuilt instead of before them.
public struct NotificationInboxProjection: Projection {
    public let name = "notification_inbox"
    public let topics: [Topic] = [.notifications, .users]
    public let tables = ["notification_inbox"]
    /// Of the users topic only the erasure matters.
    public let eventTypes: Set<String>? = [NotificationSent.eventType, NotificationRead.eventType, UserErased.eventType]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            let occurredAt = event.metadata.occurredAt
            switch event.payload {
            case let sent as NotificationSent where sent.channel == "inbox":
                try await connection.query(
                    """
                    INSERT INTO notification_inbox (notification_id, user_id, reminder_id, title, body, created_at)
                    VALUES (\(sent.notificationId), \(sent.userId), \(sent.reminderId), \(sent.title), \(sent.body), \(occurredAt))
                    ON CONFLICT (notification_id) DO NOTHING
                    """, logger: logger)
            case let read as NotificationRead:
                try await connection.query(
                    """
                    UPDATE notification_inbox SET read_at = \(occurredAt)
                    WHERE notification_id = \(read.notificationId) AND user_id = \(read.userId) AND read_at IS NULL
                    """, logger: logger)
            case let erased as UserErased:
                try await connection.query("DELETE FROM notification_inbox WHERE user_id = \(erased.userId)", logger: logger)
            default:
                continue
            }
        }
    }
}
