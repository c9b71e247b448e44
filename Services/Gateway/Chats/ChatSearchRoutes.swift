import Foundation
import HearthKnowledge
import HearthRuntime
import Hummingbird
import Logging
import PostgresNIO

/// `GET /v1/chats/search?q=&k=`: the caller's chat messages nearest in meaning to `q` ("who
/// mentioned a sore knee?"). Only chats the caller is a member of are searched, in SQL.
struct ChatSearchRoutes: Sendable {
    let provider: any EmbeddingProvider
    let client: PostgresClient
    let logger: Logger

    struct Hit: Encodable {
        var messageId: String
        var chatId: String
        var authorName: String
        var text: String
        var sentAt: Date
        var score: Double
        enum CodingKeys: String, CodingKey {
            case messageId = "message_id"
            case chatId = "chat_id"
            case authorName = "author_name"
            case text
            case sentAt = "sent_at"
            case score
        }
    }

    struct Answer: ResponseEncodable {
        var query: String
        var results: [Hit]
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("chats/search") { request, context in
            try await search(request, context: context)
        }
    }

    func search(_ request: Request, context: HearthRequestContext) async throws -> Answer {
        let user = try context.authenticatedUser()
        let query = request.uri.queryParameters
        guard let text = query.get("q")?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw APIError.invalid("q", "q must be a non-empty query")
        }
        guard text.count <= 500 else { throw APIError.invalid("q", "q must be at most 500 characters") }
        var limit = 10
        if let k = query.get("k") {
            guard let value = Int(k), (1...50).contains(value) else { throw APIError.invalid("k", "k must be 1 to 50") }
            limit = value
        }
        guard let vector = try await provider.embed([text]).first else {
            throw APIError(.serviceUnavailable, code: "embedding_unavailable", message: "the query could not be embedded")
        }
        let literal = vector.pgvectorLiteral
        let rows = try await client.query(
            """
            SELECT e.message_id, e.chat_id, e.author_name, e.body, e.sent_at, (1 - (e.embedding <=> \(literal)::vector))::float8
            FROM chat_message_embeddings e JOIN chat_members m ON m.chat_id = e.chat_id AND m.user_id = \(user)
            WHERE e.model = \(provider.model.name)
            ORDER BY e.embedding <=> \(literal)::vector, e.message_id LIMIT \(limit)
            """, logger: logger)
        var hits: [Hit] = []
        for try await (id, chat, author, body, sentAt, score) in rows.decode((UUID, UUID, String, String, Date, Double).self) {
            hits.append(
                Hit(messageId: id.uuidString.lowercased(), chatId: chat.uuidString.lowercased(), authorName: author, text: body, sentAt: sentAt, score: score))
        }
        return Answer(query: text, results: hits)
    }
}
