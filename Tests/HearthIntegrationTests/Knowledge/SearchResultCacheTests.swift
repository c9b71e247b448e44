import EmbeddingWorkerService
import Foundation
import HearthCtlCommands
import HearthEvents
import HearthKnowledge
import HearthStore
import Logging
import PostgresNIO
import Testing

extension BackboneSuite {
    /// Cached answers against real Postgres: served until a committed change of the index is
    /// announced, never after it.
    @Suite struct SearchResultCaching {
        let logger = TestEnvironment.logger

        @Test func aCommittedAnnouncementAdvancesTheGenerationAndARolledBackOneDoesNot() async throws {
            try await TestEnvironment.withPostgres { client in
                try await IndexChanges.withFeed(client) { feed, _ in
                    let other = feed.generation(of: "cache-test-\(UUID().uuidString.prefix(8))")
                    let before = try #require(other.current)
                    struct Abandoned: Error {}
                    await #expect(throws: (any Error).self) {
                        try await client.withTransaction(logger: logger) { connection in
                            try await ReadModelChanges.announce(other.readModel, on: connection, logger: logger)
                            throw Abandoned()
                        }
                    }
                    try await client.withTransaction(logger: logger) { connection in
                        try await ReadModelChanges.announce(other.readModel, on: connection, logger: logger)
                    }
                    let advanced = await KafkaTestEnvironment.eventually(timeout: .seconds(5)) { (other.current ?? 0) > before }
                    #expect(advanced)
                    // The rolled-back announcement was never delivered: exactly one step.
                    try await Task.sleep(for: .milliseconds(200))
                    #expect(other.current == before + 1)
                }
            }
        }

        @Test func anAnswerIsCachedUntilTheEmbeddingWorkerChangesTheIndex() async throws {
            try await IndexChanges.withIsolatedIndex(prefix: "cache") { index in
                let search = HearthKnowledge.KnowledgeSearch(
                    client: index.client, provider: index.embedder, logger: logger,
                    results: SearchResultCache(capacity: 16, generation: index.generation))
                let query = SearchQuery(text: "glimmerwort", scope: .knowledge, mode: .hybrid, limit: 5)
                // Both kinds of answer: a search's chunks, and the documents alone.
                try await IndexChanges.expectKeptUntilAnnounced(index, word: "glimmerwort") {
                    try await search.search(query).map(\.documentId) + search.rankedDocuments(query).map(\.documentId)
                } expected: { id, _ in
                    [id, id]
                }
            }
        }

        /// Other tests' embedding-workers announce the index too, so the generation alone cannot
        /// show that this delete announced it. Postgres queues one transaction's notifications
        /// together at commit, in the order they were sent: a `document_chunks` between two markers
        /// sent by the same transaction is that transaction's.
        @Test func deletingADocumentThroughTheProjectionIsAnnounced() async throws {
            try await TestEnvironment.withPostgres { client in
                try await MigrationRunner(client: client, logger: logger).apply(ReadModelCatalogue.migrations(of: .embeddingWorker))
                let projection = DocumentChunksProjection(provider: FirstWordEmbedder())
                let id = "cache-\(UUID().uuidString.prefix(8).lowercased())"
                let (opening, closing) = ("\(id)-opening", "\(id)-closing")
                let deleted = ProjectedEvent(
                    position: EventPosition(topic: "content", partition: 0, offset: 0),
                    metadata: EventMetadata(type: DocumentDeleted.eventType, version: DocumentDeleted.version, key: id, correlationId: id, causationId: nil, source: "test"),
                    payload: DocumentDeleted(documentId: id), value: [])
                let heard = try await client.withConnection { listener in
                    try await listener.listen(on: ReadModelChanges.channel) { notifications in
                        try await client.withTransaction(logger: logger) { connection in
                            try await ReadModelChanges.announce(opening, on: connection, logger: logger)
                            try await projection.apply([deleted], on: connection, logger: logger)
                            try await ReadModelChanges.announce(closing, on: connection, logger: logger)
                        }
                        var payloads: [String] = []
                        for try await notification in notifications {
                            payloads.append(notification.payload)
                            if notification.payload == closing { break }
                        }
                        return payloads
                    }
                }
                let transaction = heard.drop { $0 != opening }
                #expect(Array(transaction) == [opening, EmbeddingSettings.indexReadModel, closing])
            }
        }
    }
}
