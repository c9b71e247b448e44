import Foundation
import HearthKnowledge
import Logging

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
            return Self.merged(messages + documentSources, [])
        } catch {
            // An answer without sources beats no answer: retrieval is an aid, not the run.
            logger.warning("assistant retrieval failed; answering without sources", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// `extra` after `sources`, without repeats, numbered again in order.
    static func merged(_ sources: [AssistantSource], _ extra: [AssistantSource]) -> [AssistantSource] {
        var all = sources
        for source in extra where !all.contains(where: { $0.id == source.id }) { all.append(source) }
        return all.enumerated().map { index, source in
            var numbered = source
            numbered.ref = "[\(index + 1)]"
            return numbered
        }
    }

    private func messages(near vector: [Float], in chats: [UUID], search: KnowledgeSearch) async throws -> [AssistantSource] {
        try await ChatMessageSearch(client: search.client, logger: logger)
            .nearest(to: vector, model: search.provider.model.name, in: .ids(chats), limit: Self.messageCount)
            .filter { $0.similarity >= Self.minimumSimilarity }
            .map { hit in
                AssistantSource(
                    ref: "", kind: "message", id: hit.messageId.uuidString.lowercased(), title: "\(hit.authorName) in your chats",
                    snippet: hit.body, chatId: hit.chatId.uuidString.lowercased(), score: hit.similarity)
            }
    }
}
