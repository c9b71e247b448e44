import Foundation
import HearthKnowledge
import HearthReadModels
import HearthStore
import Logging
import PostgresNIO
import Testing

/// A model of its own for each test: searches compare only vectors of their model, so the chunks
/// these tests write are invisible to every other search. A text's vector is a one-hot of its
/// first word, which is all these tests need of "meaning".
struct FirstWordEmbedder: EmbeddingProvider {
    let model = EmbeddingModel(name: "first-word-\(UUID().uuidString.prefix(8).lowercased())", dimension: EmbeddingIndex.dimension)

    func embed(_ texts: [String]) async throws -> [[Float]] {
        texts.map { text in
            var vector = [Float](repeating: 0, count: EmbeddingIndex.dimension)
            let word = text.split(separator: " ").first.map(String.init) ?? ""
            vector[Int(word.utf8.reduce(UInt32(7)) { $0 &* 31 &+ UInt32($1) } % UInt32(EmbeddingIndex.dimension))] = 1
            return vector
        }
    }
}

/// Writing the knowledge index as the embedding-worker does (announced on commit), and hearing it.
enum IndexChanges {
    /// Runs `body` with a change feed listening on `client`, once its LISTEN is in effect.
    static func withFeed<T: Sendable>(_ client: PostgresClient, _ body: (ReadModelChangeFeed, ReadModelGeneration) async throws -> T) async throws -> T {
        let feed = ReadModelChangeFeed(client: client, logger: TestEnvironment.logger, retryDelay: .milliseconds(100))
        let generation = feed.generation(of: EmbeddingSettings.indexReadModel)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await feed.run() }
            defer { group.cancelAll() }
            let listening = await KafkaTestEnvironment.eventually(timeout: .seconds(10)) { generation.current != nil }
            try #require(listening)
            return try await body(feed, generation)
        }
    }

    static func document(_ id: String, title: String, body: String) -> StoredDocument {
        StoredDocument(
            id: id, kind: "tips", title: title, ageMin: nil, ageMax: nil, allergens: [], body: body,
            contentHash: String(body.hashValue), eventId: UUID(), at: Date())
    }

    static func write(_ documents: [StoredDocument], with writer: DocumentChunkWriter, client: PostgresClient, logger: Logger) async throws {
        _ = try await client.withTransaction(logger: logger) { connection in
            try await writer.write(documents, on: connection, logger: logger)
        }
    }
}
