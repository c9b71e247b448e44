import Foundation
import HearthEvents
import HearthKnowledge
import HearthStore
import Logging
import PostgresNIO

/// Embeds every chat message (same model as the knowledge base) into `chat_message_embeddings`
/// for search over a household's history. A batch is embedded in one call.
///
/// `user.erased` (users topic) removes the messages the user wrote and every message of the
/// households erased with them. The users topic comes last: a rebuild reads archived history
/// topic by topic in this order, so the erasure lands after the messages it rebuilt.
public struct ChatMessageEmbeddingsProjection: Projection {
    public let name = "chat_message_embeddings"
    /// Embedding takes far longer per event than other projections' writes: smaller batches keep
    /// each transaction (and the pause between Kafka polls) short.
    public let maxBatchSize: Int? = 32
    public let topics: [Topic] = [.chats, .users]
    public let tables = ["chat_message_embeddings"]
    /// Of the users topic only the erasure matters.
    public let eventTypes: Set<String>? = [ChatMessageSent.eventType, UserErased.eventType]

    let provider: any EmbeddingProvider

    public init(provider: any EmbeddingProvider) {
        self.provider = provider
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        try await embed(events, on: connection, logger: logger)
        // After the batch's messages: an erased user writes nothing after the erasure, so what of
        // theirs this batch embedded is theirs to remove too.
        let erasures = events.compactMap { $0.payload as? UserErased }
        guard !erasures.isEmpty else { return }
        let authors = erasures.map(\.userId)
        let households = erasures.flatMap(\.householdIds)
        try await connection.query(
            "DELETE FROM chat_message_embeddings WHERE author_id = ANY(\(authors)::uuid[]) OR household_id = ANY(\(households)::uuid[])",
            logger: logger)
    }

    private func embed(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        let messages = events.compactMap { event in (event.payload as? ChatMessageSent).map { ($0, event) } }
        guard !messages.isEmpty else { return }
        let vectors = try await provider.embed(messages.map(\.0.text))
        guard vectors.count == messages.count else {
            throw EmbeddingProviderError("the embedder returned \(vectors.count) vectors for \(messages.count) messages", retriable: true)
        }
        for ((message, event), vector) in zip(messages, vectors) {
            try await connection.query(
                """
                INSERT INTO chat_message_embeddings (message_id, chat_id, household_id, author_id, author_name, body, model, embedding,
                                                     sent_at)
                VALUES (\(message.messageId), \(message.chatId), \(message.householdId), \(message.authorId), \(message.authorName),
                        \(message.text), \(provider.model.name), \(vector.pgvectorLiteral)::vector, \(event.metadata.occurredAt))
                ON CONFLICT (message_id) DO NOTHING
                """, logger: logger)
        }
    }
}
