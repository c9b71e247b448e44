import Foundation
@testable import HearthKnowledge
import HearthStore
import Logging
import PostgresNIO
import Testing

@Suite struct SearchResultCacheTests {
    /// A generation as the change feed leaves it once its listener is on the channel.
    func listening() -> ReadModelGeneration {
        let generation = ReadModelGeneration(readModel: EmbeddingSettings.indexReadModel)
        generation.startListening()
        return generation
    }

    func key(_ text: String, allergens: [String] = [], answer: SearchResultCache.Key.Answer = .hits) -> SearchResultCache.Key {
        SearchResultCache.Key(answer, SearchQuery(text: text, scope: .recipes, limit: 8, filters: SearchFilters(excludeAllergens: allergens)), model: "m")
    }

    func ranking(_ ids: String...) -> SearchResultCache.Entry {
        .ranking(ids.map { RankedChunk(chunkId: "\($0)#0", documentId: $0, score: 1) })
    }

    func documents(_ entry: SearchResultCache.Entry?) -> [String]? {
        guard case .ranking(let chunks)? = entry else { return nil }
        return chunks.map(\.documentId)
    }

    @Test func anAnswerIsServedForTheSameQueryUntilTheIndexChanges() throws {
        let generation = listening()
        let cache = SearchResultCache(capacity: 8, generation: generation)
        let read = try #require(cache.readGeneration(for: SearchQuery(text: "tacos")))
        cache.store(ranking("a", "b"), for: key("tacos", answer: .ranking), readUnder: read)
        #expect(documents(cache.value(for: key("tacos", answer: .ranking))) == ["a", "b"])
        // Another question, other filters, or the other kind of answer are other entries.
        #expect(cache.value(for: key("tacos", answer: .hits)) == nil)
        #expect(cache.value(for: key("tacos soup", answer: .ranking)) == nil)
        #expect(cache.value(for: key("tacos", allergens: ["milk"], answer: .ranking)) == nil)

        generation.advance()
        #expect(cache.value(for: key("tacos", answer: .ranking)) == nil)
        #expect(cache.count == 0)
    }

    @Test func excludedAllergensInAnotherOrderAreTheSameQuery() throws {
        let cache = SearchResultCache(capacity: 8, generation: listening())
        let read = try #require(cache.readGeneration(for: SearchQuery(text: "soup")))
        cache.store(ranking("a"), for: key("soup", allergens: ["milk", "egg"], answer: .ranking), readUnder: read)
        #expect(documents(cache.value(for: key("soup", allergens: ["egg", "milk"], answer: .ranking))) == ["a"])
    }

    @Test func anAnswerReadBeforeAChangeIsNotStored() throws {
        let generation = listening()
        let cache = SearchResultCache(capacity: 8, generation: generation)
        let read = try #require(cache.readGeneration(for: SearchQuery(text: "tacos")))
        generation.advance()  // the index changed while the search ran
        cache.store(ranking("stale"), for: key("tacos", answer: .ranking), readUnder: read)
        #expect(cache.value(for: key("tacos", answer: .ranking)) == nil)
    }

    @Test func nothingIsCachedWhileChangesCannotBeHeard() throws {
        let generation = ReadModelGeneration(readModel: EmbeddingSettings.indexReadModel)
        let cache = SearchResultCache(capacity: 8, generation: generation)
        #expect(cache.readGeneration(for: SearchQuery(text: "tacos")) == nil)

        generation.startListening()
        let read = try #require(cache.readGeneration(for: SearchQuery(text: "tacos")))
        cache.store(ranking("a"), for: key("tacos", answer: .ranking), readUnder: read)
        #expect(documents(cache.value(for: key("tacos", answer: .ranking))) == ["a"])
        // The listening connection is lost: what was cached is no longer served, even once it is back.
        generation.stopListening()
        #expect(cache.value(for: key("tacos", answer: .ranking)) == nil)
        generation.startListening()
        #expect(cache.value(for: key("tacos", answer: .ranking)) == nil)

        let off = SearchResultCache(capacity: 8, generation: nil)
        #expect(off.capacity == 0)
        #expect(off.readGeneration(for: SearchQuery(text: "tacos")) == nil)
    }

    @Test func longQueriesAreNotCachedAndTheCacheStaysBounded() throws {
        let cache = SearchResultCache(capacity: 2, generation: listening())
        let long = String(repeating: "a", count: SearchResultCache.maximumTextLength + 1)
        #expect(cache.readGeneration(for: SearchQuery(text: long)) == nil)
        let read = try #require(cache.readGeneration(for: SearchQuery(text: "q")))
        for i in 0..<10 { cache.store(ranking("d\(i)"), for: key("q\(i)", answer: .ranking), readUnder: read) }
        #expect(cache.count <= 4)
        #expect(documents(cache.value(for: key("q9", answer: .ranking))) == ["d9"])
    }

    @Test func theEnvironmentSizesTheCacheAndRejectsNonsense() throws {
        let feed: ReadModelChangeFeed? = nil
        #expect(try EmbeddingSettings.resultCache(changes: feed, environment: [:]).capacity == 0)
        #expect(throws: EmbeddingSettings.Invalid.self) { try EmbeddingSettings.resultCache(changes: feed, environment: ["HEARTH_SEARCH_RESULT_CACHE": "-1"]) }
        #expect(throws: EmbeddingSettings.Invalid.self) { try EmbeddingSettings.resultCache(changes: feed, environment: ["HEARTH_SEARCH_RESULT_CACHE": "lots"]) }

        // With a change feed (never run here: nothing connects).
        let client = PostgresClient(configuration: .init(host: "127.0.0.1", username: "nobody", password: nil, database: nil, tls: .disable))
        let changes = ReadModelChangeFeed(client: client, logger: Logger(label: "test"))
        #expect(!changes.isNeeded)
        #expect(try EmbeddingSettings.resultCache(changes: changes, environment: [:]).capacity == EmbeddingSettings.defaultResultCacheCapacity)
        #expect(changes.isNeeded)
        #expect(try EmbeddingSettings.resultCache(changes: changes, environment: ["HEARTH_SEARCH_RESULT_CACHE": "0"]).capacity == 0)
    }
}
