import Foundation
import HearthKnowledge
import Testing

@Suite struct DocumentChunkerTests {
    static func words(_ count: Int, prefix: String) -> String {
        (1...count).map { "\(prefix)\($0)" }.joined(separator: " ")
    }

    @Test func aShortDocumentIsOneChunkWithItsHeading() {
        let chunks = DocumentChunker().chunks(of: "## Bedtime\n\nDim the lights an hour before bed.\n\nRead one story, then lights out.")
        #expect(chunks.count == 1)
        #expect(chunks[0].heading == "Bedtime")
        #expect(chunks[0].text == "Bedtime\n\nDim the lights an hour before bed.\n\nRead one story, then lights out.")
        #expect(chunks[0].index == 0)
    }

    @Test func headingsStartNewChunksOnceTheChunkHasEnoughWords() {
        let body = "## One\n\n\(Self.words(60, prefix: "a"))\n\n## Two\n\n\(Self.words(60, prefix: "b"))"
        let chunks = DocumentChunker(targetWords: 180, overlapWords: 30, minimumWords: 40).chunks(of: body)
        #expect(chunks.map(\.heading) == ["One", "Two"])
        #expect(!chunks[1].text.contains("a60"), "no overlap across sections")
        #expect(chunks[1].text.hasPrefix("Two"))
    }

    @Test func tinySectionsMergeWithTheNext() {
        let body = "## Intro\n\nShort words here.\n\n## Main\n\n\(Self.words(50, prefix: "m"))"
        let chunks = DocumentChunker(minimumWords: 40).chunks(of: body)
        #expect(chunks.count == 1)
        #expect(chunks[0].heading == "Intro")
        #expect(chunks[0].text.contains("Main") && chunks[0].text.contains("m50"))
    }

    @Test func longSectionsSplitNearTheTargetWithOverlap() {
        let paragraphs = (1...8).map { Self.words(60, prefix: "p\($0)w") }
        let chunks = DocumentChunker(targetWords: 180, overlapWords: 30).chunks(of: "## Long\n\n" + paragraphs.joined(separator: "\n\n"))
        #expect(chunks.count >= 3)
        for chunk in chunks { #expect(chunk.wordCount <= 180, "\(chunk.wordCount)") }
        for (previous, next) in zip(chunks, chunks.dropFirst()) {
            let tail = previous.text.split(separator: " ").suffix(30).map(String.init)
            let head = next.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(30).map(String.init)
            #expect(tail.last.map(head.contains) == true, "consecutive chunks share words")
            #expect(next.heading == "Long")
        }
        // Every word of the body is in some chunk.
        let all = Set(chunks.flatMap { $0.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init) })
        for paragraph in paragraphs { for word in paragraph.split(separator: " ") { #expect(all.contains(String(word))) } }
        #expect(chunks.map(\.index) == Array(0..<chunks.count))
    }

    @Test func aParagraphLongerThanAChunkIsCut() {
        let chunks = DocumentChunker(targetWords: 100, overlapWords: 20).chunks(of: Self.words(450, prefix: "x"))
        #expect(chunks.count == 6)  // 80 new words each
        #expect(chunks.allSatisfy { $0.wordCount <= 100 })
        #expect(chunks.first?.heading == nil)
        #expect(chunks.last?.text.hasSuffix("x450") == true)
    }

    @Test func emptyAndBlankBodiesHaveNoChunks() {
        #expect(DocumentChunker().chunks(of: "").isEmpty)
        #expect(DocumentChunker().chunks(of: "\n\n   \n").isEmpty)
    }

    @Test func theKnowledgeBaseChunksWithinTheModelWindow() throws {
        let documents = try ContentLibrary.builtIn()
        #expect(documents.count == 221)
        #expect(Set(documents.map(\.id)).count == documents.count)
        for document in documents {
            let chunks = DocumentChunker().chunks(of: document.body)
            #expect(!chunks.isEmpty, "\(document.id)")
            #expect(chunks.allSatisfy { $0.wordCount <= 180 }, "\(document.id)")
        }
    }
}

@Suite struct ContentLibraryTests {
    @Test func frontMatterIsParsedAndTheHashCoversEveryField() throws {
        let text = "---\nid: kb-x\ntitle: A title\nkind: safety\nmin_age: 1\nmax_age: 4\n---\n## Heading\n\nBody text."
        let document = try ContentLibrary.markdownDocument(text, path: "x.md")
        #expect(document == SourceDocument(id: "kb-x", kind: "safety", title: "A title", ageMin: 1, ageMax: 4, allergens: [], body: "## Heading\n\nBody text."))
        var changed = document
        changed.ageMax = 5
        #expect(changed.contentHash != document.contentHash)
        changed = document
        changed.title = "A title "
        #expect(changed.contentHash != document.contentHash)
        #expect(document.contentHash == (try ContentLibrary.markdownDocument(text, path: "y.md")).contentHash)
        #expect(document.contentHash.count == 64)
        #expect(document.upsertEvent.contentHash == document.contentHash)
    }

    @Test func badFrontMatterIsRefusedWithTheReason() {
        #expect(throws: ContentLibraryError.self) { try ContentLibrary.markdownDocument("no front matter", path: "a.md") }
        #expect(throws: ContentLibraryError.self) { try ContentLibrary.markdownDocument("---\nid: Bad Id\ntitle: t\nkind: safety\n---\nbody", path: "a.md") }
        #expect(throws: ContentLibraryError.self) { try ContentLibrary.markdownDocument("---\nid: ok\ntitle: t\nkind: gossip\n---\nbody", path: "a.md") }
        #expect(throws: ContentLibraryError.self) { try ContentLibrary.markdownDocument("---\nid: ok\ntitle: t\nkind: tips\nmin_age: old\n---\nbody", path: "a.md") }
    }

    @Test func recipesCarryTheirAllergensAndIngredients() throws {
        let recipes = try ContentLibrary.builtIn().filter { $0.kind == DocumentKind.recipe }
        #expect(recipes.count == 161)
        let satay = try #require(recipes.first { $0.allergens.contains("peanut") })
        #expect(satay.body.contains("## Ingredients"))
        #expect(satay.ageMin == nil && satay.ageMax == nil)
    }
}

@Suite struct ReciprocalRankFusionTests {
    @Test func itemsInBothListsWinAndScoresFollowTheFormula() {
        let fused = ReciprocalRankFusion.fuse([["a", "b", "c"], ["c", "d", "a"]], k: 60)
        #expect(fused.map(\.id) == ["a", "c", "b", "d"])
        #expect(abs(fused[0].score - (1.0 / 61 + 1.0 / 63)) < 1e-12)
        #expect(abs(fused[2].score - 1.0 / 62) < 1e-12)
    }

    @Test func tiesBreakByBestRankThenId() {
        let fused = ReciprocalRankFusion.fuse([["x", "y"], ["y", "x"]])
        #expect(fused.map(\.id) == ["x", "y"])
        #expect(fused[0].score == fused[1].score)
        #expect(ReciprocalRankFusion.fuse([["b"], ["a"]]).map(\.id) == ["a", "b"])
    }

    @Test func weightsScaleAListAndRepeatsCountOnce() {
        let fused = ReciprocalRankFusion.fuse([["a", "a", "b"], ["b"]], weights: [1, 0.5], k: 10)
        #expect(abs(fused.first { $0.id == "a" }!.score - 1.0 / 11) < 1e-12)
        #expect(abs(fused.first { $0.id == "b" }!.score - (1.0 / 13 + 0.5 / 11)) < 1e-12)
        #expect(ReciprocalRankFusion.fuse([]).isEmpty)
    }

    @Test func smallerKRewardsTopRanksMore() {
        // b is second in both lists, a first in one only.
        let lists = [["a", "b"], ["c", "b"]]
        #expect(ReciprocalRankFusion.fuse(lists, k: 60).first?.id == "b")
        #expect(ReciprocalRankFusion.fuse(lists, k: 0).first?.id == "a")
    }
}

@Suite struct RetrievalMetricsTests {
    @Test func recallReciprocalRankAndNDCG() {
        let ranked = ["x", "a", "y", "b"]
        let relevant: Set = ["a", "b"]
        #expect(RetrievalMetrics.recall(at: 2, ranked: ranked, relevant: relevant) == 0.5)
        #expect(RetrievalMetrics.recall(at: 5, ranked: ranked, relevant: relevant) == 1)
        #expect(RetrievalMetrics.reciprocalRank(ranked: ranked, relevant: relevant) == 0.5)
        #expect(RetrievalMetrics.reciprocalRank(ranked: ["z"], relevant: relevant) == 0)
        let dcg = 1 / log2(3.0) + 1 / log2(5.0)
        let ideal = 1 + 1 / log2(3.0)
        #expect(abs(RetrievalMetrics.ndcg(at: 10, ranked: ranked, relevant: relevant) - dcg / ideal) < 1e-12)
        #expect(RetrievalMetrics.ndcg(at: 10, ranked: ["a", "b"], relevant: relevant) == 1)
        #expect(RetrievalMetrics.ndcg(at: 10, ranked: [], relevant: relevant) == 0)
    }
}
