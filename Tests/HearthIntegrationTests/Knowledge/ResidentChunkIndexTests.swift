import Foundation
import HearthContent
@testable import HearthKnowledge
import HearthCtlCommands
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The searcher's in-memory copy of the index, against real Postgres: it answers what the SQL
    /// answers, follows every announced change, and steps aside when it is too large.
    @Suite struct ResidentKnowledgeIndex {
        let logger = TestEnvironment.logger

        /// Over the built-in knowledge base and MiniLM: the resident ranking is Postgres's exact
        /// scan (same documents, same scores to float precision), and its chunks are the rows.
        @Test func itRanksAsPostgresScansAndReturnsTheStoredChunks() async throws {
            try await KnowledgeStack.with { _, _ in
                try await TestEnvironment.withPostgres { client in
                    try await IndexChanges.withFeed(client) { _, generation in
                        let provider = MiniLMEmbeddingProvider()
                        let resident = ResidentChunkIndex(maximumChunks: 100_000, generation: generation)
                        let inMemory = HearthKnowledge.KnowledgeSearch(client: client, provider: provider, logger: logger, resident: resident)
                        let postgres = HearthKnowledge.KnowledgeSearch(client: client, provider: provider, logger: logger)
                        struct Labelled: Decodable { let query: String }
                        let texts = try JSONDecoder().decode([Labelled].self, from: HearthContent.data(of: .searchQueries)).map(\.query).prefix(20)
                        let filters = [SearchFilters(), SearchFilters(excludeAllergens: ["peanut", "milk"]), SearchFilters(age: 3)]
                        var compared = 0
                        for (number, text) in texts.enumerated() {
                            let scope: SearchScope = [.all, .recipes, .knowledge][number % 3]
                            let query = SearchQuery(text: text, scope: scope, mode: .vector, limit: 8, filters: filters[number % filters.count])
                            let embedding = try await inMemory.embedQuery(text)
                            // Both read the same rows only while the index stands still.
                            let before = generation.current
                            let exact = try await postgres.vectorCandidates(query, documents: 8, exact: true, embedding: embedding)
                            let resident = try await inMemory.vectorCandidates(query, documents: 8, embedding: embedding)
                            guard generation.current == before else { continue }
                            compared += 1
                            #expect(resident.count == exact.count, "\(text)")
                            for (mine, theirs) in zip(resident, exact) {
                                // Only a near-tie may swap two neighbours: the scores agree at every rank.
                                #expect(abs(mine.score - theirs.score) < 1e-5, "\(text): \(mine.chunkId) \(mine.score) vs \(theirs.chunkId) \(theirs.score)")
                                if mine.chunkId == theirs.chunkId {
                                    var stored = theirs
                                    stored.score = mine.score
                                    #expect(mine == stored, "\(mine.chunkId)")
                                }
                            }
                            #expect(!resident.isEmpty, "\(text)")
                            if let age = query.filters.age {
                                #expect(resident.allSatisfy { ($0.ageMin ?? 0) <= age && ($0.ageMax ?? 99) >= age })
                            }
                            #expect(resident.allSatisfy { Set($0.allergens).isDisjoint(with: query.filters.excludeAllergens) })
                        }
                        #expect(compared >= 10, "the index changed during most comparisons")
                        // The copy holds every chunk of the model.
                        let quiet = generation.current
                        let held = try await KnowledgeStack.count(client, "SELECT count(*) FROM document_chunks WHERE model = '\(provider.model.name)'")
                        let snapshot = try #require(await resident.snapshot(model: provider.model.name, client: client, logger: logger))
                        if generation.current == quiet {
                            #expect(snapshot.count == held)
                            #expect(held >= KnowledgeStack.builtInCount)
                        }
                    }
                }
            }
        }

        @Test func itServesFromMemoryUntilTheWorkerChangesTheIndex() async throws {
            try await IndexChanges.withIsolatedIndex(prefix: "resident") { index in
                // No result cache: every answer is ranked again, here from memory.
                let search = HearthKnowledge.KnowledgeSearch(
                    client: index.client, provider: index.embedder, logger: logger,
                    resident: ResidentChunkIndex(maximumChunks: 1_000, generation: index.generation))
                let query = SearchQuery(text: "moonpetal", scope: .knowledge, mode: .vector, limit: 5)
                // Contents too: after the unannounced delete they can come only from memory.
                try await IndexChanges.expectKeptUntilAnnounced(index, word: "moonpetal") {
                    try await search.search(query).flatMap { [$0.documentId, $0.text] }
                } expected: { id, body in
                    [id, body]
                }
            }
        }

        /// Above its limit, or with no listening connection, the copy is not used: what Postgres
        /// holds is the answer at once.
        @Test func aLargeIndexOrAnUnheardOneIsSearchedInPostgres() async throws {
            try await IndexChanges.withIsolatedIndex(prefix: "resident") { index in
                let (a, b) = ("\(index.prefix)-a", "\(index.prefix)-b")
                #expect(try await index.write([
                    IndexChanges.document(a, title: "starfruit salad", body: "Starfruit salad for a sunny lunch."),
                    IndexChanges.document(b, title: "starfruit juice", body: "Starfruit juice, no sugar added."),
                ]))
                let tooSmall = ResidentChunkIndex(maximumChunks: 1, generation: index.generation)
                let unheard = ResidentChunkIndex(maximumChunks: 1_000, generation: ReadModelGeneration(readModel: EmbeddingSettings.indexReadModel))
                let query = SearchQuery(text: "starfruit", scope: .knowledge, mode: .vector, limit: 5)
                func answer(_ resident: ResidentChunkIndex) async throws -> Set<String> {
                    let search = HearthKnowledge.KnowledgeSearch(client: index.client, provider: index.embedder, logger: logger, resident: resident)
                    return Set(try await search.search(query).map(\.documentId))
                }
                for resident in [tooSmall, unheard] {
                    #expect(try await answer(resident) == [a, b])
                    #expect(await resident.snapshot(model: index.embedder.model.name, client: index.client, logger: logger) == nil)
                }
                try await index.deleteRowsUnannounced(of: a)
                for resident in [tooSmall, unheard] {
                    #expect(try await answer(resident) == [b])
                }
            }
        }
    }
}
