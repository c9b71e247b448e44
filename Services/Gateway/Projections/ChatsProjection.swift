import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `chats`, `chat_members` and `chat_messages`, from the chats topic.
public struct ChatsProjection: Projection {
    public let name = "chats"
    public let topics: [Topic] = [.chats]
    public let tables = ["chats", "chat_members", "chat_messages"]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let created as ChatCreated:
                try await connection.query(
                    """
                    INSERT INTO chats (chat_id, household_id, title, created_by, created_at)
                    VALUES (\(created.chatId), \(created.householdId), \(created.title), \(created.createdBy), \(event.metadata.occurredAt))
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
            case let read as ChatRead:
                // Read receipts only move forward: an older up_to arriving late changes nothing.
                try await connection.query(
                    """
                    UPDATE chat_members cm SET read_up_to = m.message_id, read_up_to_seq = m.seq, read_at = \(event.metadata.occurredAt)
                    FROM chat_messages m
                    WHERE cm.chat_id = \(read.chatId) AND cm.user_id = \(read.userId) AND m.message_id = \(read.upTo)
                      AND m.chat_id = cm.chat_id AND (cm.read_up_to_seq IS NULL OR cm.read_up_to_seq < m.seq)
                    """, logger: logger)
            default:
                continue
            }
        }
    }
}
