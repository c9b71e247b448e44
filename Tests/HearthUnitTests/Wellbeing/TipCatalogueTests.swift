import Foundation
import HearthDomain
import Testing

/// The wellbeing tips: the bundled file's rules, refusals naming the tip and field, and ranking.
@Suite struct TipCatalogueTests {
    static let catalogue = Result { try TipCatalogue.bundled() }

    static let valid = """
        {"source": "test", "tips": [
          {"id": "tip-a", "title": "Wait it out", "body": "Set a timer for ten minutes.", "triggers": ["stress", "boredom"],
           "domains": ["rdr2"]},
          {"id": "tip-b", "title": "Phone away", "body": "Charge it in the hall.", "triggers": ["screens"], "domains": []}]}
        """

    static func broken(_ original: String, _ replacement: String) -> String {
        let replaced = valid.replacingOccurrences(of: original, with: replacement)
        precondition(replaced != valid, "fixture no longer contains \(original)")
        return replaced
    }

    static func tip(_ id: String, _ triggers: [WellbeingTrigger], domains: [WellbeingInterest] = []) -> WellbeingTip {
        WellbeingTip(id: id, title: "Tip \(id)", body: "Do something about it.", triggers: triggers, domains: domains)
    }

    // MARK: - The bundled file

    @Test func theBundledCatalogueLoads() throws {
        let catalogue = try Self.catalogue.get()
        #expect(catalogue.tips.count >= 66)
        #expect(catalogue.source.contains("Hearth"))
        #expect(catalogue.tip(id: "tip-001")?.title == "Wait ten minutes")
        #expect(catalogue.tip(id: "tip-000") == nil)
    }

    @Test func idsAreNumberedAndUnique() throws {
        let ids = try Self.catalogue.get().tips.map(\.id)
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.wholeMatch(of: #/tip-[0-9]{3}/#) != nil, "\(id)")
        }
    }

    @Test func everyTipFitsItsCardAndItsLimits() throws {
        for tip in try Self.catalogue.get().tips {
            #expect(!tip.title.isEmpty && tip.title.count <= TipCatalogue.titleLimit, "\(tip.id)")
            #expect(!tip.body.isEmpty && tip.body.count <= TipCatalogue.bodyLimit, "\(tip.id)")
            #expect(TipCatalogue.triggersPerTip.contains(tip.triggers.count), "\(tip.id)")
            #expect(tip.domains.count <= 2, "\(tip.id)")
            #expect(Set(tip.triggers).count == tip.triggers.count, "\(tip.id)")
            #expect(Set(tip.domains).count == tip.domains.count, "\(tip.id)")
        }
    }

    @Test func everyTriggerHasAtLeastFourTipsAndEveryDomainOne() throws {
        let tips = try Self.catalogue.get().tips
        for trigger in WellbeingTrigger.allCases {
            #expect(tips.count { $0.triggers.contains(trigger) } >= 4, "\(trigger.rawValue)")
        }
        for domain in WellbeingInterest.allCases {
            #expect(tips.contains { $0.domains.contains(domain) }, "\(domain.rawValue)")
        }
    }

    /// Tips are behavioural suggestions; anything that reads like medical advice is a content bug.
    @Test func noTipReadsLikeMedicalAdvice() throws {
        let words = ["diagnos", "dose", "dosage", " mg", "medication", "prescri", "disorder", "cure"]
        for tip in try Self.catalogue.get().tips {
            let text = (tip.title + " " + tip.body).lowercased()
            for word in words {
                #expect(!text.contains(word), "\(tip.id) mentions \(word)")
            }
        }
    }

    @Test func bundledReturnsTheSameCatalogueEachTime() throws {
        #expect(try TipCatalogue.bundled().tips == Self.catalogue.get().tips)
    }

    // MARK: - Fixtures

    @Test func acceptsAMinimalValidFile() throws {
        let catalogue = try TipCatalogue(data: Data(Self.valid.utf8))
        #expect(catalogue.tips.map(\.id) == ["tip-a", "tip-b"])
        #expect(catalogue.tip(id: "tip-a")?.triggers == [.stress, .boredom])
        #expect(catalogue.tip(id: "tip-a")?.domains == [.rdr2])
        let tip = try #require(catalogue.tip(id: "tip-b"))
        let json = try JSONEncoder().encode(tip)
        #expect(try JSONDecoder().decode(WellbeingTip.self, from: json) == tip)
    }

    struct Malformed: Sendable, CustomStringConvertible {
        let problem: String
        let json: String
        let tip: String
        let field: String
        var description: String { problem }
    }

    static let malformedFiles: [Malformed] = [
        Malformed(problem: "unknown trigger", json: broken(#"["screens"]"#, #"["screen"]"#), tip: "tip-b", field: "triggers"),
        Malformed(problem: "no triggers", json: broken(#"["screens"]"#, "[]"), tip: "tip-b", field: "triggers"),
        Malformed(
            problem: "four triggers", json: broken(#"["screens"]"#, #"["screens", "stress", "hunger", "fatigue"]"#),
            tip: "tip-b", field: "triggers"),
        Malformed(problem: "trigger twice", json: broken(#"["screens"]"#, #"["screens", "screens"]"#), tip: "tip-b", field: "triggers"),
        Malformed(problem: "unknown domain", json: broken(#"["rdr2"]"#, #"["rdr3"]"#), tip: "tip-a", field: "domains"),
        Malformed(
            problem: "three domains", json: broken(#"["rdr2"]"#, #"["rdr2", "sci_fi", "harry_potter"]"#), tip: "tip-a",
            field: "domains"),
        Malformed(
            problem: "title too long", json: broken(#""Wait it out""#, "\"" + String(repeating: "w", count: 61) + "\""),
            tip: "tip-a", field: "title"),
        Malformed(problem: "empty body", json: broken(#""Charge it in the hall.""#, #""  ""#), tip: "tip-b", field: "body"),
        Malformed(problem: "body with a trailing space", json: broken(#"hall.""#, #"hall. ""#), tip: "tip-b", field: "body"),
        Malformed(problem: "missing domains", json: broken(#", "domains": []"#, ""), tip: "tip-b", field: "domains"),
        Malformed(problem: "title as a number", json: broken(#""Phone away""#, "7"), tip: "tip-b", field: "title"),
        Malformed(problem: "misspelt key", json: broken(#""domains": []"#, #""domain": []"#), tip: "tip-b", field: "domain"),
        Malformed(problem: "upper-case id", json: broken(#""id": "tip-b""#, #""id": "Tip-B""#), tip: "Tip-B", field: "id"),
        Malformed(problem: "no id", json: broken(#""id": "tip-b", "#, ""), tip: "tips[1]", field: "id"),
        Malformed(problem: "repeated id", json: broken(#""id": "tip-b""#, #""id": "tip-a""#), tip: "tip-a", field: "id"),
    ]

    @Test(arguments: malformedFiles)
    func malformedTipsAreRefusedNamingTheTipAndField(_ file: Malformed) {
        let error = #expect(throws: TipCatalogueError.self, "\(file.problem)") {
            try TipCatalogue(data: Data(file.json.utf8))
        }
        guard case .invalidTip(let tip, let field, _)? = error else {
            Issue.record("\(file.problem): expected an invalid tip, got \(String(describing: error))")
            return
        }
        #expect(tip == file.tip, "\(file.problem)")
        #expect(field == file.field, "\(file.problem)")
    }

    @Test func anUnknownTriggerIsNamedInTheReason() {
        let json = Self.broken(#"["screens"]"#, #"["screen"]"#)
        let error = #expect(throws: TipCatalogueError.self) { try TipCatalogue(data: Data(json.utf8)) }
        #expect(error?.description.contains("\"screen\" is not one of") == true)
        #expect(error?.description.contains("tips.json") == true)
    }

    @Test func aFileThatIsNotACatalogueIsUnreadable() {
        for json in [#"[{"id": "tip-a"}]"#, #"{"tips": []}"#, "not json"] {
            let error = #expect(throws: TipCatalogueError.self, "\(json)") { try TipCatalogue(data: Data(json.utf8)) }
            guard case .unreadable(let file, _)? = error else {
                Issue.record("\(json): expected unreadable, got \(String(describing: error))")
                continue
            }
            #expect(file == "tips.json")
        }
    }

    // MARK: - Ranking

    @Test func aTipMatchingAReportedTriggerComesBeforeOneThatDoesNot() {
        let tips = [Self.tip("a", [.hunger], domains: [.sciFi]), Self.tip("b", [.stress])]
        let ranked = TipRanking.rank(tips, triggerCounts: [.stress: 1], interests: [.sciFi], seen: [], similarity: ["a": 1])
        #expect(ranked.map(\.id) == ["b", "a"], "a match outweighs an interest bonus plus full similarity")
    }

    @Test func theMoreOftenReportedTriggerWins() {
        let tips = [Self.tip("a", [.stress]), Self.tip("b", [.lateNight])]
        #expect(TipRanking.rank(tips, triggerCounts: [.stress: 1, .lateNight: 4], interests: [], seen: []).map(\.id) == ["b", "a"])
        #expect(TipRanking.rank(tips, triggerCounts: [.stress: 4, .lateNight: 1], interests: [], seen: []).map(\.id) == ["a", "b"])
    }

    @Test func moreMatchingTriggersRankHigher() {
        let tips = [Self.tip("a", [.stress]), Self.tip("b", [.stress, .fatigue])]
        #expect(TipRanking.rank(tips, triggerCounts: [.stress: 5, .fatigue: 1], interests: [], seen: []).map(\.id) == ["b", "a"])
    }

    @Test func seenTipsGoLastButAreKept() {
        let tips = [Self.tip("a", [.stress]), Self.tip("b", [.hunger]), Self.tip("c", [.stress, .anxiety])]
        let ranked = TipRanking.rank(tips, triggerCounts: [.stress: 3, .anxiety: 2], interests: [], seen: ["c", "a"])
        #expect(ranked.map(\.id) == ["b", "c", "a"])
    }

    @Test func anInterestDomainBreaksOtherwiseEqualScores() {
        let tips = [Self.tip("a", [.stress]), Self.tip("b", [.stress], domains: [.guitarBasics])]
        #expect(TipRanking.rank(tips, triggerCounts: [.stress: 1], interests: [.guitarBasics], seen: []).map(\.id) == ["b", "a"])
    }

    @Test func similarityBreaksOtherwiseEqualScoresAndIdBreaksTheRest() {
        let tips = [Self.tip("c", [.stress]), Self.tip("a", [.stress]), Self.tip("b", [.stress])]
        let counts: [WellbeingTrigger: Int] = [.stress: 2]
        #expect(TipRanking.rank(tips, triggerCounts: counts, interests: [], seen: []).map(\.id) == ["a", "b", "c"])
        #expect(
            TipRanking.rank(tips, triggerCounts: counts, interests: [], seen: [], similarity: ["c": 0.9, "b": 0.4]).map(\.id)
                == ["c", "b", "a"])
    }

    @Test func outOfRangeSimilaritiesAreClamped() {
        let tip = Self.tip("a", [.stress])
        #expect(TipRanking.score(tip, triggerCounts: [:], interests: [], seen: [], similarity: ["a": 7]) == 1)
        #expect(TipRanking.score(tip, triggerCounts: [:], interests: [], seen: [], similarity: ["a": -2]) == 0)
        #expect(TipRanking.score(tip, triggerCounts: [:], interests: [], seen: [], similarity: ["a": .nan]) == 0)
    }

    @Test func theScoreFollowsTheDocumentedWeights() {
        let tip = Self.tip("a", [.stress, .boredom], domains: [.sciFi])
        let score = TipRanking.score(
            tip, triggerCounts: [.stress: 4, .boredom: 2, .hunger: 0], interests: [.sciFi], seen: ["a"], similarity: ["a": 0.5])
        // stress 3 + 2×4/4, boredom 3 + 2×2/4, interest 1, similarity 0.5, seen −1000.
        let expected: Double = 5 + 4 + 1 + 0.5 - 1000
        #expect(score == expected)
        #expect(TipRanking.score(tip, triggerCounts: [.hunger: -3], interests: [], seen: []) == 0)
    }

    @Test func theBundledRankingIsDeterministicAndPutsMatchesFirst() throws {
        let tips = try Self.catalogue.get().tips
        let counts: [WellbeingTrigger: Int] = [.lateNight: 5, .screens: 2]
        let first = TipRanking.rank(tips, triggerCounts: counts, interests: [.guitarBasics], seen: [])
        #expect(first == TipRanking.rank(tips.reversed(), triggerCounts: counts, interests: [.guitarBasics], seen: []))
        #expect(first.count == tips.count)
        let top = try #require(first.first)
        #expect(top.triggers.contains(.lateNight))
    }

    @Test func theBestTipForADomainFitsIt() throws {
        let catalogue = try Self.catalogue.get()
        for domain in WellbeingInterest.allCases {
            let best = try #require(catalogue.bestTip(for: domain), "\(domain.rawValue)")
            #expect(best.domains.contains(domain), "\(domain.rawValue): \(best.id)")
        }
        let forTrigger = try #require(catalogue.bestTip(for: .guitarBasics, triggers: [.hunger]))
        #expect(forTrigger.triggers.contains(.hunger))
    }
}
