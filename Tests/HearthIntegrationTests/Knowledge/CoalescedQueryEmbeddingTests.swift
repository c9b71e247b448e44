import Foundation
import HearthContent
@testable import HearthKnowledge
import Synchronization
import Testing

/// MiniLM behind a door that holds the first pass until the test opens it, so that the calls made
/// meanwhile are known to wait (on a loaded box the callers' tasks may otherwise only start once
/// the pass before them has finished, and nothing would be left to share).
private final class FirstPassHeld: EmbeddingProvider {
    let inner: any EmbeddingProvider
    private let door = Mutex<(opened: Bool, held: CheckedContinuation<Void, Never>?, passes: Int)>((false, nil, 0))

    init(_ inner: any EmbeddingProvider) { self.inner = inner }

    var model: EmbeddingModel { inner.model }
    var isHolding: Bool { door.withLock { $0.held != nil } }

    func embed(_ texts: [String]) async throws -> [[Float]] {
        await withCheckedContinuation { continuation in
            let goesThrough = door.withLock { door in
                door.passes += 1
                guard !door.opened, door.passes == 1 else { return true }
                door.held = continuation
                return false
            }
            if goesThrough { continuation.resume() }
        }
        return try await inner.embed(texts)
    }

    func open() {
        let held = door.withLock { door in
            door.opened = true
            defer { door.held = nil }
            return door.held
        }
        held?.resume()
    }
}

/// A searcher's concurrent queries share MiniLM forward passes (`CoalescingEmbeddingProvider`):
/// every query still gets exactly the vector it gets alone.
@Suite struct CoalescedQueryEmbedding {
    @Test func queriesThatWaitedShareOnePassAndGetTheVectorsTheyGetAlone() async throws {
        struct Labelled: Decodable { let query: String }
        let queries = Array(Set(try JSONDecoder().decode([Labelled].self, from: HearthContent.data(of: .searchQueries)).map(\.query)).sorted().prefix(24))
        try #require(queries.count == 24)
        let alone = MiniLMEmbeddingProvider()
        var expected: [String: [Float]] = [:]
        for query in queries { expected[query] = try await alone.embed([query])[0] }

        // One pass at a time, and the first one held: every query asked meanwhile waits for the next.
        let door = FirstPassHeld(MiniLMEmbeddingProvider())
        let coalescing = CoalescingEmbeddingProvider(door, maxConcurrentBatches: 1)
        let vectors = try await withThrowingTaskGroup(of: (String, [Float]).self) { group in
            defer { door.open() }  // a failed wait must end the test, not hang it
            let first = "the first query, whose pass the others wait behind"
            group.addTask { (first, try await coalescing.embed([first])[0]) }
            try #require(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { door.isHolding })
            for query in queries { group.addTask { (query, try await coalescing.embed([query])[0]) } }
            try #require(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { coalescing.waitingCalls == queries.count })
            door.open()
            var vectors: [String: [Float]] = [:]
            for try await (query, vector) in group { vectors[query] = vector }
            return vectors
        }
        for query in queries {
            // Bit for bit, not approximately: a search must not depend on what else was asked meanwhile.
            #expect(vectors[query] == expected[query], "\(query)")
        }
        #expect(coalescing.statistics == (passes: 2, calls: 25))
    }
}
