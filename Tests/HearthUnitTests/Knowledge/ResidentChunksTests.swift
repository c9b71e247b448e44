import Foundation
@testable import HearthKnowledge
import Testing

/// The in-memory ranking must answer what `KnowledgeSearch`'s SQL answers: cosine similarity,
/// each document by its nearest chunk, ties by chunk id, the same filters.
@Suite struct ResidentChunksTests {
    static let dimension = 4

    func hit(_ id: String, document: String, kind: String = "tips", ages: (Int?, Int?) = (nil, nil), allergens: [String] = []) -> SearchHit {
        SearchHit(
            chunkId: id, documentId: document, kind: kind, title: "title of \(document)", heading: nil, chunkIndex: 0,
            text: "text of \(id)", ageMin: ages.0, ageMax: ages.1, allergens: allergens, score: 0)
    }

    func chunks(_ rows: [(SearchHit, [Float])]) throws -> ResidentChunks {
        var chunks = ResidentChunks(model: "m", dimension: Self.dimension)
        for (hit, vector) in rows { try chunks.append(hit, embedding: vector) }
        return chunks
    }

    @Test func documentsComeNearestFirstByTheirBestChunkWithCosineScores() throws {
        let index = try chunks([
            (hit("a-0", document: "a"), [1, 0, 0, 0]),
            (hit("a-1", document: "a"), [0, 1, 0, 0]),
            // Not unit length: the ranking is by angle, as pgvector's `<=>` is.
            (hit("b-0", document: "b"), [6, 8, 0, 0]),
            (hit("c-0", document: "c"), [0, 0, 0, 5]),
        ])
        let ranked = index.nearestDocuments(to: [0, 2, 0, 0], kinds: ["tips"], filters: SearchFilters(), documents: 10)
        #expect(ranked.map(\.documentId) == ["a", "b", "c"])
        #expect(ranked.map(\.chunkId) == ["a-1", "b-0", "c-0"])
        let scores = ranked.map(\.score)
        #expect(abs(scores[0] - 1) < 1e-6)
        #expect(abs(scores[1] - 0.8) < 1e-6)
        #expect(abs(scores[2]) < 1e-6)
        #expect(index.nearestDocuments(to: [0, 2, 0, 0], kinds: ["tips"], filters: SearchFilters(), documents: 2).map(\.documentId) == ["a", "b"])
    }

    @Test func equalDistancesGoByChunkIdAndZeroVectorsComeLast() throws {
        let index = try chunks([
            (hit("z-0", document: "z"), [0, 0, 1, 0]),
            (hit("m-1", document: "m"), [0, 0, 3, 0]),
            (hit("m-0", document: "m"), [0, 0, 2, 0]),
            (hit("empty", document: "e"), [0, 0, 0, 0]),
        ])
        let ranked = index.nearestDocuments(to: [0, 0, 1, 0], kinds: ["tips"], filters: SearchFilters(), documents: 10)
        #expect(ranked.map(\.chunkId) == ["m-0", "z-0", "empty"])
        #expect(ranked.last?.score == -.infinity)
        // A zero query vector leaves every distance undefined: nothing ranks above anything.
        #expect(index.nearestDocuments(to: [0, 0, 0, 0], kinds: ["tips"], filters: SearchFilters(), documents: 10).map(\.chunkId) == ["empty", "m-0", "z-0"])
    }

    @Test func theFiltersOfTheSQLApply() throws {
        let index = try chunks([
            (hit("r-peanut", document: "r1", kind: "recipe", allergens: ["peanut"]), [1, 0, 0, 0]),
            (hit("r-plain", document: "r2", kind: "recipe"), [1, 0.1, 0, 0]),
            (hit("t-toddler", document: "t1", ages: (1, 3)), [1, 0.2, 0, 0]),
            (hit("t-teen", document: "t2", ages: (13, nil)), [1, 0.3, 0, 0]),
            (hit("t-any", document: "t3"), [1, 0.4, 0, 0]),
        ])
        let query: [Float] = [1, 0, 0, 0]
        #expect(index.nearestDocuments(to: query, kinds: ["recipe"], filters: SearchFilters(), documents: 10).map(\.documentId) == ["r1", "r2"])
        #expect(index.nearestDocuments(to: query, kinds: ["recipe"], filters: SearchFilters(excludeAllergens: ["peanut", "milk"]), documents: 10)
            .map(\.documentId) == ["r2"])
        #expect(index.nearestDocuments(to: query, kinds: ["tips"], filters: SearchFilters(age: 2), documents: 10).map(\.documentId) == ["t1", "t3"])
        #expect(index.nearestDocuments(to: query, kinds: ["tips"], filters: SearchFilters(age: 15), documents: 10).map(\.documentId) == ["t2", "t3"])
        #expect(index.nearestDocuments(to: query, kinds: [], filters: SearchFilters(), documents: 10).isEmpty)
        #expect(index.nearestDocuments(to: [1, 0], kinds: ["tips"], filters: SearchFilters(), documents: 10).isEmpty)
    }

    @Test func chunksAreFoundByIdWithTheirContents() throws {
        let index = try chunks([(hit("a-0", document: "a", allergens: ["egg"]), [1, 0, 0, 0])])
        #expect(index.hit("a-0")?.text == "text of a-0")
        #expect(index.hit("a-0")?.allergens == ["egg"])
        #expect(index.hit("missing") == nil)
        #expect(index.count == 1)
    }

    @Test func aVectorOfAnotherDimensionIsRefused() throws {
        var index = try chunks([(hit("a-0", document: "a"), [1, 0, 0, 0])])
        #expect(throws: ResidentChunks.WrongDimension.self) { try index.append(hit("b-0", document: "b"), embedding: [1, 0]) }
        #expect(index.count == 1)
        #expect(index.hit("b-0") == nil)
    }

    @Test func theDotProductCoversEveryLane() {
        // 16-lane blocks plus a tail: 37 = 2 × 16 + 5.
        let a = (0..<37).map { Float($0) / 10 }
        let b = (0..<37).map { Float(37 - $0) / 7 }
        let expected = zip(a, b).reduce(Float(0)) { $0 + $1.0 * $1.1 }
        let got = a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in ResidentChunks.dot(x.baseAddress!, y.baseAddress!, count: 37) } }
        #expect(abs(got - expected) < 1e-3 * abs(expected))
    }
}
