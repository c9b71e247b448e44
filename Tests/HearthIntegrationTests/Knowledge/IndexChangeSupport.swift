import EmbeddingWorkerService
import Foundation
import HearthCtlCommands
import HearthKnowledge
import HearthStore
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

    /// Runs `body` with a migrated index, a listening feed and a model of its own.
    static func withIsolatedIndex<T: Sendable>(prefix: String, _ body: (IsolatedIndex) async throws -> T) async throws -> T {
        try await TestEnvironment.withPostgres { client in
            try await MigrationRunner(client: client, logger: TestEnvironment.logger).apply(ReadModelCatalogue.migrations(of: .embeddingWorker))
            return try await withFeed(client) { _, generation in
                try await body(IsolatedIndex(client: client, generation: generation, prefix: "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"))
            }
        }
    }

    /// What every copy of the index a searcher keeps (the result cache, the resident index) must
    /// do: keep its answer while rows go without an announcement, and read the index again after
    /// an announced write. `answer` is what the test compares of its search for `word`;
    /// `expected(id, body)` is that answer when only document `id`, with `body`, matches.
    static func expectKeptUntilAnnounced(
        _ index: IsolatedIndex, word: String, answer: () async throws -> [String], expected: (String, String) -> [String]
    ) async throws {
        let first = (id: "\(index.prefix)-a", body: "\(word.capitalized) tea for a calm evening.")
        // Another test's embedding-worker may write chunks meanwhile (each write makes the copy
        // stale): the check is repeated until no change came between.
        for attempt in 1...5 {
            #expect(try await index.write([document(first.id, title: "\(word) tea", body: first.body)]))
            let quiet = index.generation.current
            let before = try await answer()
            #expect(before == expected(first.id, first.body))
            try await index.deleteRowsUnannounced()
            let kept = try await answer()
            guard index.generation.current == quiet else {
                if attempt == 5 { Issue.record("the index changed during every attempt") }
                continue
            }
            #expect(kept == before)
            break
        }
        let second = (id: "\(index.prefix)-b", body: "\(word.capitalized) soup, mild enough for toddlers.")
        #expect(try await index.write([document(second.id, title: "\(word) soup", body: second.body)]))
        #expect(try await answer() == expected(second.id, second.body))
    }
}

/// One test's corner of the knowledge index: its own model, so no other search sees its chunks.
struct IsolatedIndex: Sendable {
    let client: PostgresClient
    let generation: ReadModelGeneration
    let prefix: String
    let embedder = FirstWordEmbedder()

    var writer: DocumentChunkWriter { DocumentChunkWriter(provider: embedder) }

    /// Writes as the embedding-worker does; true once the feed heard the commit.
    func write(_ documents: [StoredDocument]) async throws -> Bool {
        let start = try #require(generation.current)
        let writer = writer
        _ = try await client.withTransaction(logger: TestEnvironment.logger) { connection in
            try await writer.write(documents, on: connection, logger: TestEnvironment.logger)
        }
        return await KafkaTestEnvironment.eventually(timeout: .seconds(5)) { (generation.current ?? 0) > start }
    }

    /// Removes rows of this model (of one document, or all) without announcing it.
    func deleteRowsUnannounced(of documentId: String? = nil) async throws {
        if let documentId {
            _ = try await client.query("DELETE FROM document_chunks WHERE model = \(embedder.model.name) AND document_id = \(documentId)", logger: TestEnvironment.logger).collect()
        } else {
            _ = try await client.query("DELETE FROM document_chunks WHERE model = \(embedder.model.name)", logger: TestEnvironment.logger).collect()
        }
    }
}
