import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// New chat messages as pushes, planned inside the `reminders` projection: every member of the
/// chat but its author gets one reminder per chat (`chat_message`, APNs only, due when the
/// message was sent), so a newer message replaces a push still waiting (quiet hours) and the
/// device shows one notification per chat (the reminder id is the collapse id). A read of the
/// chat after the message cancels the push still pending.
///
/// Whether it goes out is decided by the dispatcher when it sends, from what is true then: the
/// recipient still belongs to the chat's household and is not watching the chat on an open stream
/// (`chat_stream_presence`, which the gateways keep); the badge counts their unread messages.
///
/// The author's words are theirs: the reminder row records who wrote them (`chat_author_id`), so
/// that the author's erasure removes the pushes planned for everyone else, and the delivery log
/// and `notification.sent` say only "New message" (`loggedTitle`), never the name or the text.
struct ChatPushPlanner: Sendable {
    static let tables = ["chat_push_members"]
    static let eventTypes: Set<String> = [ChatCreated.eventType, ChatMessageSent.eventType, ChatMediaShared.eventType, ChatRead.eventType]
    static let source = "chat_message"
    /// A push shows the start of the message; the app opens the rest.
    static let previewLength = 160

    /// One reminder per chat and recipient: a newer message moves it.
    static func reminderId(chat: UUID, user: UUID) -> UUID {
        NotificationIdentity.derivedUUID("chat-message|\(chat.uuidString.lowercased())|\(user.uuidString.lowercased())")
    }

    /// What the delivery log and the outcome event keep of a chat push.
    static let loggedTitle = "New message"

    static func preview(_ text: String) -> String { Excerpt.clipped(text, to: previewLength) }

    /// Whether `event` was one of the planner's (applied).
    func apply(_ event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        switch event.payload {
        case let created as ChatCreated:
            for member in Set(created.memberIds + [created.createdBy]) {
                try await connection.query(
                    """
                    INSERT INTO chat_push_members (chat_id, user_id, household_id) VALUES (\(created.chatId), \(member), \(created.householdId))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            return true
        case let sent as ChatMessageSent:
            try await plan(
                chat: sent.chatId, household: sent.householdId, author: sent.authorId, title: sent.authorName, body: Self.preview(sent.text),
                event: event, on: connection, logger: logger)
            return true
        case let shared as ChatMediaShared:
            let body = shared.caption.isEmpty ? "sent a photo" : "📷 " + Self.preview(shared.caption)
            try await plan(
                chat: shared.chatId, household: shared.householdId, author: shared.authorId, title: shared.authorName, body: body,
                event: event, on: connection, logger: logger)
            return true
        case let read as ChatRead:
            // The reader opened the chat after the message: the push still waiting is not needed.
            try await connection.query(
                """
                UPDATE reminders SET status = 'cancelled', updated_at = \(event.metadata.occurredAt), last_event_id = \(event.metadata.id)
                WHERE reminder_id = \(Self.reminderId(chat: read.chatId, user: read.userId)) AND status = 'pending'
                  AND due_at <= \(event.metadata.occurredAt)
                """, logger: logger)
            return true
        default:
            return false
        }
    }

    /// The push of one message to every other member of the chat.
    private func plan(
        chat: UUID, household: UUID, author: UUID, title: String, body: String, event: ProjectedEvent, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let rows = try await connection.query(
            "SELECT user_id FROM chat_push_members WHERE chat_id = \(chat) AND user_id <> \(author) ORDER BY user_id", logger: logger)
        var recipients: [UUID] = []
        for try await user in rows.decode(UUID.self) { recipients.append(user) }
        for user in recipients {
            try await connection.query(
                """
                INSERT INTO reminders (reminder_id, user_id, household_id, member_id, chat_id, chat_author_id, title, body, due_at, urgent,
                                       channels, source, status, updated_at, last_event_id)
                VALUES (\(Self.reminderId(chat: chat, user: user)), \(user), \(household), NULL, \(chat), \(author),
                        \(title), \(body), \(event.metadata.occurredAt), false, ARRAY['apns'],
                        \(Self.source), 'pending', \(event.metadata.occurredAt), \(event.metadata.id))
                ON CONFLICT (reminder_id) DO UPDATE SET title = EXCLUDED.title, body = EXCLUDED.body, due_at = EXCLUDED.due_at,
                    chat_author_id = EXCLUDED.chat_author_id,
                    status = 'pending', updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
                WHERE reminders.user_id = EXCLUDED.user_id AND reminders.due_at <= EXCLUDED.due_at
                """, logger: logger)
        }
    }

    func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "DELETE FROM chat_push_members WHERE user_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds)::uuid[])",
            logger: logger)
    }
}
