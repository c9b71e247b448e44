import Foundation
import Logging
import PostgresNIO

/// Chat messages nearest in meaning to a query vector (`chat_message_embeddings`, the
/// embedding-worker's read model of `chat.message_sent`), from the given chats only: the chat
/// search API and the assistant's retrieval both ask through here, so the scoping lives in one query.
public struct ChatMessageSearch: Sendable {
    public struct Hit: Sendable, Equatable {
        public var messageId: UUID
        public var chatId: UUID
        public var authorName: String
        public var body: String
        public var sentAt: Date
        /// Cosine similarity to the query, 1 for the same direction.
        public var similarity: Double
    }

    /// Which chats a search may read.
    public enum Chats: Sendable {
        /// These chats (the caller resolved membership itself).
        case ids([UUID])
        /// Every chat this user is a member of (`chat_members`, the gateway's read model) in a
        /// household whose chats they may still read (`household_chat_access`).
        case memberOf(UUID)
    }

    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func nearest(to vector: [Float], model: String, in chats: Chats, limit: Int) async throws -> [Hit] {
        let query: PostgresQuery
        // The vector goes as a binary float4[]: nothing to format here or to parse in Postgres.
        switch chats {
        case .ids(let ids):
            guard !ids.isEmpty else { return [] }
            query = """
                SELECT message_id, chat_id, author_name, body, sent_at, (1 - (embedding <=> \(vector)::real[]::vector))::float8
                FROM chat_message_embeddings
                WHERE model = \(model) AND chat_id = ANY(\(ids))
                ORDER BY embedding <=> \(vector)::real[]::vector, message_id LIMIT \(limit)
                """
        case .memberOf(let user):
            query = """
                SELECT message_id, chat_id, author_name, body, sent_at, (1 - (embedding <=> \(vector)::real[]::vector))::float8
                FROM chat_message_embeddings
                WHERE model = \(model) AND chat_id IN (
                    SELECT cm.chat_id FROM chat_members cm JOIN chats c ON c.chat_id = cm.chat_id
                    JOIN household_chat_access() a ON a.household_id = c.household_id AND a.user_id = cm.user_id
                    WHERE cm.user_id = \(user))
                ORDER BY embedding <=> \(vector)::real[]::vector, message_id LIMIT \(limit)
                """
        }
        var hits: [Hit] = []
        for try await (id, chat, author, body, sentAt, similarity)
            in try await client.query(query, logger: logger).decode((UUID, UUID, String, String, Date, Double).self) {
            hits.append(Hit(messageId: id, chatId: chat, authorName: author, body: body, sentAt: sentAt, similarity: similarity))
        }
        return hits
    }
}
