import Foundation
import HearthContent
import HearthKnowledge
import Testing

/// A searcher's concurrent queries share MiniLM forward passes (`CoalescingEmbeddingProvider`):
/// every query still gets exactly the vector it gets alone.
@Suite struct CoalescedQueryEmbedding {
    @Test func concurrentQueriesSharePassesAndGetTheVectorsTheyGetAlone() async throws {
        struct Labelled: Decodable { let query: String }
        let queries = Array(Set(try JSONDecoder().decode([Labelled].self, from: HearthContent.data(of: .searchQueries)).map(\.query)).sorted().prefix(24))
        try #require(queries.count == 24)
        let alone = MiniLMEmbeddingProvider()
        var expected: [String: [Float]] = [:]
        for query in queries { expected[query] = try await alone.embed([query])[0] }

        // One pass at a time: every query that arrives while one runs waits for the next.
        let coalescing = CoalescingEmbeddingProvider(MiniLMEmbeddingProvider(), maxConcurrentBatches: 1)
        _ = try await coalescing.embed(["warm up: the model loads on the first call"])
        let vectors = try await withThrowingTaskGroup(of: (String, [Float]).self) { group in
            for query in queries { group.addTask { (query, try await coalescing.embed([query])[0]) } }
            var vectors: [String: [Float]] = [:]
            for try await (query, vector) in group { vectors[query] = vector }
            return vectors
        }
        for query in queries {
            // Bit for bit, not approximately: a search must not depend on what else was asked meanwhile.
            #expect(vectors[query] == expected[query], "\(query)")
        }
        let statistics = coalescing.statistics
        #expect(statistics.calls == 25)
        #expect(statistics.passes < 12, "24 concurrent queries took \(statistics.passes - 1) passes")
    }
}
