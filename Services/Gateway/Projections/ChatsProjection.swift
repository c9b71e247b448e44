import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `chats`, `chat_members` and `chat_messages`, from the chats topic, less what `user.erased`
/// (on the users topic) removes.
public struct ChatsProjection: Projection {
    public let name = "chats"
    public let topics: [Topic] = [.chats, .users]
    public let tables = ["chats", "chat_members", "chat_messages"]
    /// Every type of the chats topic this projection reads, and only `user.erased` of the users
    /// topic (registrations and profile updates are passed over undecoded).
    public let eventTypes: Set<String>? = [
        ChatCreated.eventType, ChatMessageSent.eventType, ChatMediaShared.eventType, ChatRead.eventType, UserErased.eventType,
    ]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let created as ChatCreated:
                try await connection.query(
                    """
                    INSERT INTO chats (chat_id, household_id, title, created_by, created_at, last_activity_at)
                    VALUES (\(created.chatId), \(created.householdId), \(created.title), \(created.createdBy), \(event.metadata.occurredAt),
                            \(event.metadata.occurredAt))
                    ON CONFLICT (chat_id) DO NOTHING
                    """, logger: logger)
                for member in Set(created.memberIds + [created.createdBy]) {
                    try await connection.query(
                        "INSERT INTO chat_members (chat_id, user_id) VALUES (\(created.chatId), \(member)) ON CONFLICT DO NOTHING",
                        logger: logger)
                }
            case let sent as ChatMessageSent:
                try await connection.query(
                    """
                    INSERT INTO chat_messages (message_id, chat_id, household_id, author_id, author_name, body, client_id, seq, sent_at)
                    VALUES (\(sent.messageId), \(sent.chatId), \(sent.householdId), \(sent.authorId), \(sent.authorName), \(sent.text),
                            \(sent.clientId), \(event.position.offset), \(event.metadata.occurredAt))
                    ON CONFLICT (message_id) DO NOTHING
                    """, logger: logger)
                // The chat's newest activity, for the chat list; a message seen again changes nothing.
                try await connection.query(
                    """
                    UPDATE chats SET last_seq = \(event.position.offset), last_activity_at = \(event.metadata.occurredAt)
                    WHERE chat_id = \(sent.chatId) AND (last_seq IS NULL OR last_seq < \(event.position.offset))
                    """, logger: logger)
            case let shared as ChatMediaShared:
                try await connection.query(
                    """
                    INSERT INTO chat_messages (message_id, chat_id, household_id, author_id, author_name, body, client_id, seq, sent_at,
                                               media_id, media_type, media_size, media_width, media_height)
                    VALUES (\(shared.messageId), \(shared.chatId), \(shared.householdId), \(shared.authorId), \(shared.authorName), \(shared.caption),
                            \(shared.clientId), \(event.position.offset), \(event.metadata.occurredAt),
                            \(shared.mediaId), \(shared.mediaType), \(shared.mediaSize), \(shared.mediaWidth), \(shared.mediaHeight))
                    ON CONFLICT (message_id) DO NOTHING
                    """, logger: logger)
                try await connection.query(
                    """
                    UPDATE chats SET last_seq = \(event.position.offset), last_activity_at = \(event.metadata.occurredAt)
                    WHERE chat_id = \(shared.chatId) AND (last_seq IS NULL OR last_seq < \(event.position.offset))
                    """, logger: logger)
            case let read as ChatRead:
                // Read receipts only move forward: an older up_to arriving late changes nothing.
                try await connection.query(
                    """
                    UPDATE chat_members cm SET read_up_to = m.message_id, read_up_to_seq = m.seq, read_at = \(event.metadata.occurredAt)
                    FROM chat_messages m
                    WHERE cm.chat_id = \(read.chatId) AND cm.user_id = \(read.userId) AND m.message_id = \(read.upTo)
                      AND m.chat_id = cm.chat_id AND (cm.read_up_to_seq IS NULL OR cm.read_up_to_seq < m.seq)
                    """, logger: logger)
            case let erased as UserErased:
                try await erase(erased, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    /// `user.erased`: the chats of the households erased with the user go with everything in them;
    /// the user leaves every other chat; the messages they sent in chats that stay are kept as a
    /// deleted user's, with the values a replay reads once their key is destroyed
    /// (`ChatMessageSent`'s erased `author_name` and `text`), so a rebuild gives the same rows.
    /// `author_id` and `client_id` are ids, kept so the thread and read receipts still hold.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        if !erased.householdIds.isEmpty {
            // Messages and members first: they are found through the chats of those households.
            try await connection.query(
                """
                DELETE FROM chat_messages
                WHERE chat_id IN (SELECT chat_id FROM chats WHERE household_id = ANY(\(erased.householdIds)))
                """, logger: logger)
            try await connection.query(
                """
                DELETE FROM chat_members
                WHERE chat_id IN (SELECT chat_id FROM chats WHERE household_id = ANY(\(erased.householdIds)))
                """, logger: logger)
            try await connection.query("DELETE FROM chats WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
            try await connection.query("DELETE FROM chat_media WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
        }
        // Their images go with their words (the bytes are not in any event to replay).
        try await connection.query("DELETE FROM chat_media WHERE uploaded_by = \(erased.userId)", logger: logger)
        try await connection.query("DELETE FROM chat_members WHERE user_id = \(erased.userId)", logger: logger)
        // Rows already anonymised (a redelivered erasure) are not rewritten.
        try await connection.query(
            """
            UPDATE chat_messages SET author_name = 'deleted user', body = '', media_id = NULL, media_type = NULL, media_size = NULL,
                media_width = NULL, media_height = NULL
            WHERE author_id = \(erased.userId) AND (author_name <> 'deleted user' OR body <> '' OR media_id IS NOT NULL)
            """, logger: logger)
    }
}
