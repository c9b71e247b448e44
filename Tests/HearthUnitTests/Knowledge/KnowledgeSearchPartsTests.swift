import Foundation
@testable import HearthKnowledge
import Testing

@Suite struct QueryEmbeddingCacheTests {
    @Test func aStoredVectorIsFoundForTheSameModelAndTextOnly() {
        let cache = QueryEmbeddingCache(capacity: 4)
        cache.store([1, 0], model: "m1", text: "chicken tacos")
        #expect(cache.vector(model: "m1", text: "chicken tacos") == [1, 0])
        #expect(cache.vector(model: "m2", text: "chicken tacos") == nil)
        #expect(cache.vector(model: "m1", text: "Chicken tacos") == nil)
    }

    @Test func recentlyUsedEntriesSurviveAndMemoryStaysBounded() {
        let cache = QueryEmbeddingCache(capacity: 3)
        for i in 0..<3 { cache.store([Float(i)], model: "m", text: "q\(i)") }
        // Full: the next store starts a new generation; q0 is read and so promoted into it.
        cache.store([3], model: "m", text: "q3")
        #expect(cache.vector(model: "m", text: "q0") == [0])
        cache.store([4], model: "m", text: "q4")
        // The current generation (q3, q0, q4) is full: q5 drops the older one (q1, q2).
        cache.store([5], model: "m", text: "q5")
        #expect(cache.vector(model: "m", text: "q1") == nil)
        #expect(cache.vector(model: "m", text: "q2") == nil)
        #expect(cache.vector(model: "m", text: "q0") == [0])
        #expect(cache.vector(model: "m", text: "q5") == [5])
        #expect(cache.count <= 6)
    }

    @Test func capacityZeroAndLongTextsAreNotCached() {
        let off = QueryEmbeddingCache(capacity: 0)
        off.store([1], model: "m", text: "q")
        #expect(off.vector(model: "m", text: "q") == nil)
        let cache = QueryEmbeddingCache(capacity: 8)
        let long = String(repeating: "a", count: QueryEmbeddingCache.maximumTextLength + 1)
        cache.store([1], model: "m", text: long)
        #expect(cache.vector(model: "m", text: long) == nil)
        #expect(cache.count == 0)
    }

    @Test func theEnvironmentSizesTheCacheAndRejectsNonsense() throws {
        #expect(try EmbeddingSettings.queryCache(environment: [:]).capacity == EmbeddingSettings.defaultQueryCacheCapacity)
        #expect(try EmbeddingSettings.queryCache(environment: ["HEARTH_QUERY_EMBEDDING_CACHE": "0"]).capacity == 0)
        #expect(throws: EmbeddingSettings.Invalid.self) { try EmbeddingSettings.queryCache(environment: ["HEARTH_QUERY_EMBEDDING_CACHE": "-1"]) }
        #expect(throws: EmbeddingSettings.Invalid.self) { try EmbeddingSettings.queryCache(environment: ["HEARTH_QUERY_EMBEDDING_CACHE": "many"]) }
    }
}

@Suite struct KnowledgeSearchSQLTests {
    @Test func filterPlaceholdersAreNumberedAfterTheQuerysOwnParameters() {
        let sql = "SELECT $1, $2 WHERE " + KnowledgeSearch.filterSQL
        let numbered = KnowledgeSearch.numberingFilterPlaceholders(sql, first: 3)
        #expect(numbered.hasPrefix("SELECT $1, $2 WHERE model = $3 AND kind = ANY($4::text[]) AND NOT (allergens && $5::text[]) AND ($6 = false"))
        #expect(numbered.hasSuffix("(age_min IS NULL OR age_min <= $7) AND (age_max IS NULL OR age_max >= $7)))"))
        #expect(!numbered.contains("$M") && !numbered.contains("$G"))
        #expect(KnowledgeSearch.numberingFilterPlaceholders("price $ and $1 — café", first: 9) == "price $ and $1 — café")
    }
}

@Suite struct SearchHitSnippetTests {
    static func hit(_ text: String) -> SearchHit {
        SearchHit(chunkId: "c", documentId: "d", kind: "recipe", title: "t", heading: nil, chunkIndex: 0, text: text,
                  ageMin: nil, ageMax: nil, allergens: [], score: 1)
    }

    @Test func whitespaceIsCollapsedAndShortTextsAreWhole() {
        #expect(Self.hit("  Dim the\n\n lights\tan hour  before bed. ").snippet() == "Dim the lights an hour before bed.")
    }

    @Test func longTextsAreCutAtAWordWithAnEllipsis() {
        let text = (1...100).map { "word\($0)" }.joined(separator: "  \n")
        let snippet = Self.hit(text).snippet(length: 30)
        #expect(snippet == "word1 word2 word3 word4 word5…")
        let exact = Self.hit("abcde fghij").snippet(length: 11)
        #expect(exact == "abcde fghij")
        #expect(Self.hit("abcdefghijkl").snippet(length: 5) == "abcde…")
    }

    /// Lengths are in characters, not scalars; whitespace is Unicode's, not only ASCII's.
    @Test func charactersOfSeveralScalarsAndUnicodeSpacesCountAsTheyRead() {
        let accented = "e\u{301}"
        #expect(Self.hit("\(accented)\(accented)\(accented) abc").snippet(length: 3) == "\(accented)\(accented)\(accented)…")
        #expect(Self.hit("\(accented)\(accented) ab").snippet(length: 5) == "\(accented)\(accented) ab")
        #expect(Self.hit("\u{3000}tea\u{00A0}\u{00A0}for\r\ntwo\u{2003}").snippet() == "tea for two")
        let family = "👨‍👩‍👧"
        let long = Array(repeating: family, count: 40).joined(separator: " ")
        #expect(Self.hit(long).snippet(length: 9) == Array(repeating: family, count: 4).joined(separator: " ") + "…")
    }
}
