import Foundation
import HearthRuntime
import Hummingbird
import Logging
import PostgresNIO

/// A chat message in the API's shape.
struct ChatMessageView: ResponseEncodable, Sendable {
    var messageId: String
    var chatId: String
    var authorId: String
    var authorName: String
    var text: String
    var clientId: String
    var sentAt: Date

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case chatId = "chat_id"
        case authorId = "author_id"
        case authorName = "author_name"
        case text
        case clientId = "client_id"
        case sentAt = "sent_at"
    }
}

extension ChatMessageView {
    /// A message as the live stream received it, in the same shape as the history.
    init(_ message: ChatStreamMessage) {
        self.init(
            messageId: message.messageId.uuidString.lowercased(), chatId: message.chatId.uuidString.lowercased(),
            authorId: message.authorId.uuidString.lowercased(), authorName: message.authorName, text: message.text,
            clientId: message.clientId, sentAt: message.sentAt)
    }
}

/// Reads of `chats`, `chat_members`, `chat_messages`, and the access rule built on them.
struct ChatReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The chat's household when `user` is one of its members and still belongs to that
    /// household (one who left or was removed reads and writes it no more). Anyone else gets a
    /// 404, whether or not the chat exists: a 403 would confirm it does.
    func requireMember(_ user: UUID, of chatId: UUID) async throws -> UUID {
        let rows = try await client.query(
            """
            SELECT c.household_id FROM chats c JOIN chat_members m ON m.chat_id = c.chat_id
            JOIN user_households uh ON uh.household_id = c.household_id AND uh.user_id = m.user_id
            WHERE c.chat_id = \(chatId) AND m.user_id = \(user)
            """, logger: logger)
        for try await household in rows.decode(UUID.self) { return household }
        throw APIError.notFound("chat")
    }

    /// Users of `householdId` among `ids`, so a chat can only include the household's users.
    func householdUsers(_ ids: [UUID], of householdId: UUID) async throws -> Set<UUID> {
        let rows = try await client.query(
            "SELECT user_id FROM user_households WHERE household_id = \(householdId) AND user_id = ANY(\(ids))", logger: logger)
        var found = Set<UUID>()
        for try await id in rows.decode(UUID.self) { found.insert(id) }
        return found
    }

    func displayName(of user: UUID) async throws -> String? {
        let rows = try await client.query("SELECT display_name FROM users WHERE user_id = \(user)", logger: logger)
        for try await name in rows.decode(String?.self) { return name }
        return nil
    }

    func message(_ messageId: UUID, in chatId: UUID) async throws -> ChatMessageView? {
        try await messages(
            query: """
                SELECT message_id, chat_id, author_id, author_name, body, client_id, sent_at FROM chat_messages
                WHERE message_id = \(messageId) AND chat_id = \(chatId)
                """
        ).first
    }

    /// Newest first, older than `before` when given.
    func messages(in chatId: UUID, before: UUID?, limit: Int) async throws -> [ChatMessageView] {
        if let before {
            return try await messages(
                query: """
                    SELECT message_id, chat_id, author_id, author_name, body, client_id, sent_at FROM chat_messages
                    WHERE chat_id = \(chatId) AND seq < (SELECT seq FROM chat_messages WHERE message_id = \(before) AND chat_id = \(chatId))
                    ORDER BY seq DESC LIMIT \(limit)
                    """)
        }
        return try await messages(
            query: """
                SELECT message_id, chat_id, author_id, author_name, body, client_id, sent_at FROM chat_messages
                WHERE chat_id = \(chatId) ORDER BY seq DESC LIMIT \(limit)
                """)
    }

    private func messages(query: PostgresQuery) async throws -> [ChatMessageView] {
        let rows = try await client.query(query, logger: logger)
        var views: [ChatMessageView] = []
        for try await (id, chat, author, name, body, clientId, sentAt) in rows.decode((UUID, UUID, UUID, String, String, String, Date).self) {
            views.append(
                ChatMessageView(
                    messageId: id.uuidString.lowercased(), chatId: chat.uuidString.lowercased(), authorId: author.uuidString.lowercased(),
                    authorName: name, text: body, clientId: clientId, sentAt: sentAt))
        }
        return views
    }
}
