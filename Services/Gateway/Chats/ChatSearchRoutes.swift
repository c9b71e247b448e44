import Foundation
import HearthKnowledge
import HearthRuntime
import Hummingbird

/// `GET /v1/chats/search?q=&k=`: the caller's chat messages nearest in meaning to `q` ("who
/// mentioned a sore knee?"). Only chats the caller is a member of are searched, in SQL.
struct ChatSearchRoutes: Sendable {
    /// Embeds the query (with its cache of recent queries) with the active model.
    let search: KnowledgeSearch
    let messages: ChatMessageSearch

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
        let query = FormQuery.parameters(of: request)
        guard let text = query["q"]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw APIError.invalid("q", "q must be a non-empty query")
        }
        guard text.unicodeScalars.count <= 500 else { throw APIError.invalid("q", "q must be at most 500 characters") }
        var limit = 10
        if let k = query["k"] {
            guard let value = Int(k), (1...50).contains(value) else { throw APIError.invalid("k", "k must be 1 to 50") }
            limit = value
        }
        let vector: [Float]
        do {
            vector = try await search.embedQuery(text)
        } catch let error as EmbeddingProviderError {
            context.logger.error("chat search embedding failed", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "embedding_unavailable", message: "the query could not be embedded")
        }
        let hits = try await messages.nearest(to: vector, model: search.provider.model.name, in: .memberOf(user), limit: limit).map { hit in
            Hit(
                messageId: hit.messageId.uuidString.lowercased(), chatId: hit.chatId.uuidString.lowercased(), authorName: hit.authorName,
                text: hit.body, sentAt: hit.sentAt, score: hit.similarity)
        }
        return Answer(query: text, results: hits)
    }
}
