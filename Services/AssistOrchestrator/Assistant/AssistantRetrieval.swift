import Foundation
import HearthKnowledge
import Logging
import PostgresNIO

/// One passage the assistant's answer may cite: a message from the user's chats, or a chunk of
/// the knowledge base.
struct AssistantSource: Sendable, Encodable {
    /// `[1]`, `[2]`, ... as the answer cites it.
    var ref: String
    /// `message` or `document`.
    var kind: String
    var id: String
    var title: String
    var snippet: String
    var chatId: String?
    var score: Double

    enum CodingKeys: String, CodingKey {
        case ref, kind, id, title, snippet
        case chatId = "chat_id"
        case score
    }
}

/// Retrieval for the assistant: the question is embedded once, then the nearest messages of the
/// chats the user belongs to and the nearest knowledge-base documents, each kept only when close
/// enough to be worth citing (an instruction like "remind me ..." should cite nothing).
struct AssistantRetrieval: Sendable {
    /// Nil when the knowledge search is switched off; the assistant then answers without sources.
    let search: KnowledgeSearch?
    let logger: Logger

    static let messageCount = 3
    static let documentCount = 2
    /// Cosine similarity below which a passage is not about the question (MiniLM scores
    /// unrelated family sentences around 0.1–0.3).
    static let minimumSimilarity = 0.4

    func sources(for question: String, chats: [UUID]) async -> [AssistantSource] {
        guard let search else { return [] }
        do {
            let vector = try await search.embedQuery(question)
            let messages = chats.isEmpty ? [] : try await self.messages(near: vector, in: chats, search: search)
            let documents = try await search.vectorCandidates(
                SearchQuery(text: question, scope: .knowledge, mode: .vector, limit: Self.documentCount),
                documents: Self.documentCount, embedding: vector)
            let documentSources = documents.filter { $0.score >= Self.minimumSimilarity }.map { hit in
                AssistantSource(
                    ref: "", kind: "document", id: hit.documentId, title: hit.heading.map { "\(hit.title) — \($0)" } ?? hit.title,
                    snippet: hit.snippet(length: 240), chatId: nil, score: hit.score)
            }
            return (messages + documentSources).enumerated().map { index, source in
                var numbered = source
                numbered.ref = "[\(index + 1)]"
                return numbered
            }
        } catch {
            // An answer without sources beats no answer: retrieval is an aid, not the run.
            logger.warning("assistant retrieval failed; answering without sources", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func messages(near vector: [Float], in chats: [UUID], search: KnowledgeSearch) async throws -> [AssistantSource] {
        let literal = vector.pgvectorLiteral
        let rows = try await search.client.query(
            """
            SELECT message_id, chat_id, author_name, body, (1 - (embedding <=> \(literal)::vector))::float8 AS similarity
            FROM chat_message_embeddings
            WHERE chat_id = ANY(\(chats)) AND model = \(search.provider.model.name)
            ORDER BY embedding <=> \(literal)::vector, message_id LIMIT \(Self.messageCount)
            """, logger: logger)
        var found: [AssistantSource] = []
        for try await (id, chat, author, body, similarity) in rows.decode((UUID, UUID, String, String, Double).self)
        where similarity >= Self.minimumSimilarity {
            found.append(AssistantSource(
                ref: "", kind: "message", id: id.uuidString.lowercased(), title: "\(author) in your chats", snippet: body,
                chatId: chat.uuidString.lowercased(), score: similarity))
        }
        return found
    }
}
