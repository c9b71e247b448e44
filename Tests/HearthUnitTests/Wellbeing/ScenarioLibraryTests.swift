import Foundation
import HearthDomain
import Testing

/// Small scenario files for the library and session tests, built from node graphs so that each
/// broken case differs from the valid one in exactly the way its name says.
enum ScenarioFixtures {
    static let kinds = ["pause", "redirect", "connect", "impulse"]

    /// `nodes` maps a node id to where its choices lead; an empty list makes the node an ending.
    /// Choice ids are "a", "b", … and kinds cycle through pause, redirect, connect, impulse.
    static func scenario(
        id: String = "fixture", theme: String? = nil, triggers: [String] = ["stress"], start: String = "one",
        nodes: [String: [String]]
    ) -> [String: Any] {
        var rendered: [String: Any] = [:]
        for (nodeID, nexts) in nodes {
            if nexts.isEmpty {
                rendered[nodeID] = ["text": "The end of \(nodeID).", "ending": true]
            } else {
                rendered[nodeID] = [
                    "text": "You are at \(nodeID).",
                    "choices": nexts.enumerated().map { index, next in
                        let choiceID = String(UnicodeScalar(UInt8(ascii: "a") + UInt8(index)))
                        return [
                            "id": choiceID, "text": "Take \(choiceID) at \(nodeID).", "next": next,
                            "insight": "Choice \(choiceID) at \(nodeID) shows something.", "kind": kinds[index % kinds.count],
                        ]
                    },
                ]
            }
        }
        return [
            "id": id, "title": "Fixture \(id)", "theme": theme ?? "\(id)-theme", "triggers": triggers, "start": start,
            "nodes": rendered,
        ]
    }

    /// one → two → three → end, two choices at each step: every path is three choices long.
    static let straightNodes: [String: [String]] = [
        "one": ["two", "two"], "two": ["three", "three"], "three": ["end", "end"], "end": [],
    ]

    static func file(_ scenarios: [[String: Any]]) -> Data {
        try! JSONSerialization.data(
            withJSONObject: ["source": "fixture", "scenarios": scenarios], options: [.sortedKeys])
    }

    static func library(_ scenarios: [[String: Any]]) throws -> ScenarioLibrary {
        try ScenarioLibrary(data: file(scenarios))
    }

    /// Where and why a file was refused; nil when it was accepted or refused for a file-level reason.
    static func refusal(_ data: Data) -> (scenario: String, node: String?, field: String, reason: String)? {
        do {
            _ = try ScenarioLibrary(data: data)
            return nil
        } catch {
            guard case .invalidScenario(let scenario, let node, let field, let reason) = error else { return nil }
            return (scenario, node, field, reason)
        }
    }

    /// Every walk from `start` to an ending, as the node ids visited.
    static func paths(of scenario: PracticeScenario) -> [[String]] {
        var complete: [[String]] = []
        func walk(_ path: [String]) {
            guard let node = scenario.node(path.last!), path.count <= 20 else {
                complete.append(path)
                return
            }
            if node.isEnding {
                complete.append(path)
                return
            }
            for choice in node.choices { walk(path + [choice.next]) }
        }
        walk([scenario.start])
        return complete
    }
}

/// One way to break the fixture scenario, and where the refusal must point.
struct BrokenScenario: Sendable, CustomTestStringConvertible {
    let name: String
    let nodes: [String: [String]]
    let node: String
    let field: String
    let reasonMentions: String

    var testDescription: String { name }
}

@Suite struct ScenarioLibraryTests {
    static let bundled = Result { try ScenarioLibrary.bundled() }

    // MARK: - The bundled file

    @Test func theBundledLibraryLoads() throws {
        let library = try Self.bundled.get()
        #expect(library.scenarios.count >= 12)
        #expect(library.source.contains("Hearth"))
        let ids = library.scenarios.map(\.id)
        #expect(Set(ids).count == ids.count)
        let themes = library.scenarios.map(\.theme)
        #expect(Set(themes).count == themes.count)
        for scenario in library.scenarios {
            #expect(library.scenario(id: scenario.id) == scenario)
            #expect(library.scenario(theme: scenario.theme) == scenario)
            #expect(ScenarioLibrary.triggersPerScenario.contains(scenario.triggers.count), "\(scenario.id)")
        }
        #expect(library.scenario(id: "no-such-scenario") == nil)
        #expect(library.scenario(theme: "no-such-theme") == nil)
    }

    @Test func everyTriggerHasAScenario() throws {
        let covered = Set(try Self.bundled.get().scenarios.flatMap(\.triggers))
        for trigger in WellbeingTrigger.allCases {
            #expect(covered.contains(trigger), "no scenario lists \(trigger.rawValue)")
        }
    }

    @Test func everyPathOfEveryBundledScenarioIsThreeToSixChoicesAndEndsAtAnEnding() throws {
        for scenario in try Self.bundled.get().scenarios {
            let paths = ScenarioFixtures.paths(of: scenario)
            #expect(paths.count >= 2, "\(scenario.id) has only one path")
            var visited: Set<String> = []
            for path in paths {
                let choices = path.count - 1
                #expect(ScenarioLibrary.stepsPerPath.contains(choices), "\(scenario.id): \(path.joined(separator: " → "))")
                #expect(Set(path).count == path.count, "\(scenario.id) loops: \(path.joined(separator: " → "))")
                let last = try #require(scenario.node(path.last!), "\(scenario.id): missing \(path.last!)")
                #expect(last.isEnding, "\(scenario.id): \(path.joined(separator: " → "))")
                visited.formUnion(path)
            }
            #expect(visited == Set(scenario.nodes.keys), "\(scenario.id): unreachable \(Set(scenario.nodes.keys).subtracting(visited).sorted())")
            for (nodeID, node) in scenario.nodes where !node.isEnding {
                #expect(ScenarioLibrary.choicesPerStep.contains(node.choices.count), "\(scenario.id)/\(nodeID)")
                #expect(Set(node.choices.map(\.id)).count == node.choices.count, "\(scenario.id)/\(nodeID)")
            }
        }
    }

    @Test func insightsAreSingleSentences() throws {
        for scenario in try Self.bundled.get().scenarios {
            for (nodeID, node) in scenario.nodes {
                for choice in node.choices {
                    let insight = choice.insight
                    #expect(insight.hasSuffix("."), "\(scenario.id)/\(nodeID)/\(choice.id)")
                    #expect(!insight.dropLast().contains(". "), "\(scenario.id)/\(nodeID)/\(choice.id): \(insight)")
                }
            }
        }
    }

    @Test func everyScenarioOffersAnImpulseAndAnAlternative() throws {
        // The practice is about the moment of choice: a scenario where the urge is never on the
        // table, or never the only thing on it, would not rehearse that moment.
        for scenario in try Self.bundled.get().scenarios {
            let kinds = Set(scenario.nodes.values.flatMap { $0.choices.map(\.kind) })
            #expect(kinds.contains(.impulse), "\(scenario.id)")
            #expect(kinds.count >= 3, "\(scenario.id): \(kinds)")
        }
    }

    @Test func aScenarioRoundTripsThroughJSON() throws {
        let scenario = try #require(try Self.bundled.get().scenarios.first)
        let decoded = try JSONDecoder().decode(PracticeScenario.self, from: JSONEncoder().encode(scenario))
        #expect(decoded == scenario)
        let ending = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ScenarioNode.ending("Done."))) as? [String: Any]
        #expect(ending?["ending"] as? Bool == true)
        #expect(ending?["choices"] == nil)
    }

    // MARK: - Refusals

    @Test func theFixtureItselfIsAccepted() throws {
        let library = try ScenarioFixtures.library([ScenarioFixtures.scenario(nodes: ScenarioFixtures.straightNodes)])
        #expect(library.scenarios.map(\.id) == ["fixture"])
    }

    static let brokenGraphs: [BrokenScenario] = [
        BrokenScenario(
            name: "a next that names no node",
            nodes: ["one": ["two", "two"], "two": ["three", "three"], "three": ["end", "nowhere"], "end": []],
            node: "three", field: "choices[1].next", reasonMentions: "nowhere"),
        BrokenScenario(
            name: "a loop back to the start",
            nodes: ["one": ["two", "two"], "two": ["three", "three"], "three": ["end", "one"], "end": []],
            node: "three", field: "choices[1].next", reasonMentions: "loop"),
        BrokenScenario(
            name: "a step with one choice",
            nodes: ["one": ["two", "two"], "two": ["three"], "three": ["end", "end"], "end": []],
            node: "two", field: "choices", reasonMentions: "has 1 choice"),
        BrokenScenario(
            name: "a step with five choices",
            nodes: ["one": ["two", "two"], "two": Array(repeating: "three", count: 5), "three": ["end", "end"], "end": []],
            node: "two", field: "choices", reasonMentions: "has 5 choices"),
        BrokenScenario(
            name: "a path of two choices",
            nodes: ["one": ["two", "two"], "two": ["three", "end"], "three": ["end", "end"], "end": []],
            node: "end", field: "ending", reasonMentions: "after only 2 choices"),
        BrokenScenario(
            name: "a path of seven choices",
            nodes: [
                "one": ["two", "two"], "two": ["three", "three"], "three": ["four", "four"], "four": ["five", "five"],
                "five": ["six", "six"], "six": ["seven", "seven"], "seven": ["end", "end"], "end": [],
            ],
            node: "end", field: "ending", reasonMentions: "after 7 choices"),
        BrokenScenario(
            name: "a node nothing leads to",
            nodes: ["one": ["two", "two"], "two": ["three", "three"], "three": ["end", "end"], "orphan": ["end", "end"], "end": []],
            node: "orphan", field: "nodes", reasonMentions: "no path from start"),
    ]

    @Test(arguments: brokenGraphs)
    func aBrokenGraphIsRefusedNamingScenarioNodeAndField(_ broken: BrokenScenario) throws {
        let data = ScenarioFixtures.file([ScenarioFixtures.scenario(nodes: broken.nodes)])
        let refusal = try #require(ScenarioFixtures.refusal(data))
        #expect(refusal.scenario == "fixture")
        #expect(refusal.node == broken.node)
        #expect(refusal.field == broken.field)
        #expect(refusal.reason.contains(broken.reasonMentions), "\(refusal.reason)")
    }

    @Test func aBrokenFieldIsRefusedNamingIt() throws {
        func refused(_ edit: (inout [String: Any]) -> Void) -> (scenario: String, node: String?, field: String, reason: String)? {
            var scenario = ScenarioFixtures.scenario(nodes: ScenarioFixtures.straightNodes)
            edit(&scenario)
            return ScenarioFixtures.refusal(ScenarioFixtures.file([scenario]))
        }
        func editChoice(_ key: String, _ value: Any?) -> (inout [String: Any]) -> Void {
            { scenario in
                var nodes = scenario["nodes"] as! [String: Any]
                var node = nodes["two"] as! [String: Any]
                var choices = node["choices"] as! [[String: Any]]
                choices[0][key] = value
                node["choices"] = choices
                nodes["two"] = node
                scenario["nodes"] = nodes
            }
        }

        let unknownTrigger = refused { $0["triggers"] = ["stress", "sadness"] }
        #expect(unknownTrigger?.scenario == "fixture")
        #expect(unknownTrigger?.node == nil)
        #expect(unknownTrigger?.field == "triggers[1]")

        #expect(refused { $0["triggers"] = [] as [String] }?.field == "triggers")
        #expect(refused { $0["triggers"] = ["stress", "boredom", "hunger", "fatigue"] }?.field == "triggers")
        #expect(refused { $0["triggers"] = ["stress", "stress"] }?.field == "triggers[1]")
        #expect(refused { $0["start"] = "zero" }?.field == "start")
        #expect(refused { $0["theme"] = "Work Stress" }?.field == "theme")
        #expect(refused { $0["summary"] = "extra" }?.field == "summary")

        let badID = refused { $0["id"] = "Not Kebab" }
        #expect(badID?.scenario == "scenarios[0]")
        #expect(badID?.field == "id")

        let missingInsight = refused(editChoice("insight", nil))
        #expect(missingInsight?.node == "two")
        #expect(missingInsight?.field == "choices[0].insight")
        #expect(missingInsight?.reason == "is missing")

        #expect(refused(editChoice("kind", "urge"))?.field == "choices[0].kind")
        #expect(refused(editChoice("id", "b"))?.field == "choices[1].id")
        #expect(refused(editChoice("text", "  padded "))?.field == "choices[0].text")

        let endingWithChoices = refused { scenario in
            var nodes = scenario["nodes"] as! [String: Any]
            var node = nodes["two"] as! [String: Any]
            node["ending"] = true
            nodes["two"] = node
            scenario["nodes"] = nodes
        }
        #expect(endingWithChoices?.node == "two")
        #expect(endingWithChoices?.field == "choices")
    }

    @Test func repeatedIdsAndThemesAreRefused() throws {
        let twice = ScenarioFixtures.scenario(nodes: ScenarioFixtures.straightNodes)
        let sameID = try #require(ScenarioFixtures.refusal(ScenarioFixtures.file([twice, twice])))
        #expect(sameID.scenario == "fixture")
        #expect(sameID.field == "id")

        let other = ScenarioFixtures.scenario(id: "other", theme: "fixture-theme", nodes: ScenarioFixtures.straightNodes)
        let sameTheme = try #require(ScenarioFixtures.refusal(ScenarioFixtures.file([twice, other])))
        #expect(sameTheme.scenario == "other")
        #expect(sameTheme.field == "theme")
    }

    @Test func fileLevelFaultsAreRefused() {
        #expect(throws: ScenarioLibraryError.self) { try ScenarioLibrary(data: Data("not json".utf8)) }
        #expect(throws: ScenarioLibraryError.invalidFile(field: "scenarios", reason: "must be a non-empty list of scenarios")) {
            try ScenarioLibrary(data: Data(#"{"source": "x", "scenarios": []}"#.utf8))
        }
        #expect(throws: ScenarioLibraryError.invalidFile(field: "source", reason: "must be a non-empty string")) {
            try ScenarioLibrary(data: Data(#"{"scenarios": []}"#.utf8))
        }
        let described = ScenarioLibraryError.invalidScenario(scenario: "s", node: "n", field: "f", reason: "r").description
        #expect(described == #"scenarios.json: scenario "s", node "n", field "f": r"#)
    }

    // MARK: - Choosing

    static func choosingLibrary() throws -> ScenarioLibrary {
        try ScenarioFixtures.library([
            ScenarioFixtures.scenario(id: "stress-only", triggers: ["stress"], nodes: ScenarioFixtures.straightNodes),
            ScenarioFixtures.scenario(id: "stress-and-fatigue", triggers: ["stress", "fatigue"], nodes: ScenarioFixtures.straightNodes),
            ScenarioFixtures.scenario(id: "bored", triggers: ["boredom"], nodes: ScenarioFixtures.straightNodes),
            ScenarioFixtures.scenario(id: "lonely", triggers: ["loneliness", "late_night"], nodes: ScenarioFixtures.straightNodes),
        ])
    }

    @Test func choosingFollowsTheRecentTriggers() throws {
        let library = try Self.choosingLibrary()
        func chosen(_ counts: [WellbeingTrigger: Int], excluding recent: [String] = []) -> String {
            library.choose(forTheme: nil, recentTriggers: counts, excluding: recent, seed: 7).id
        }
        #expect(chosen([.boredom: 3, .stress: 1]) == "bored")
        #expect(chosen([.loneliness: 1, .lateNight: 1, .stress: 1]) == "lonely")
        #expect(chosen([.stress: 2, .fatigue: 1]) == "stress-and-fatigue")
        // Equal sums: the scenario with no unrelated triggers fits better.
        #expect(chosen([.stress: 2]) == "stress-only")
        // Negative counts are not evidence against a scenario.
        #expect(chosen([.boredom: 1, .stress: -5]) == "bored")
    }

    @Test func choosingAvoidsRecentlyPlayedScenarios() throws {
        let library = try Self.choosingLibrary()
        let counts: [WellbeingTrigger: Int] = [.boredom: 3, .stress: 1]
        #expect(library.choose(forTheme: nil, recentTriggers: counts, excluding: ["bored"], seed: 1).id == "stress-only")
        #expect(
            library.choose(forTheme: nil, recentTriggers: counts, excluding: ["bored", "stress-only"], seed: 1).id
                == "stress-and-fatigue")
        // Everything played: the one played longest ago (last in the list) comes back.
        let everything = ["bored", "stress-only", "stress-and-fatigue", "lonely"]
        #expect(library.choose(forTheme: nil, recentTriggers: counts, excluding: everything, seed: 1).id == "lonely")
        #expect(library.choose(forTheme: nil, recentTriggers: counts, excluding: ["no-such-id"], seed: 1).id == "bored")
    }

    @Test func anExplicitThemeWins() throws {
        let library = try Self.choosingLibrary()
        let counts: [WellbeingTrigger: Int] = [.boredom: 9]
        #expect(library.choose(forTheme: "lonely-theme", recentTriggers: counts, excluding: ["lonely"], seed: 3).id == "lonely")
        #expect(library.scenario(theme: "no-such-theme") == nil)
        #expect(library.choose(forTheme: "no-such-theme", recentTriggers: counts, excluding: [], seed: 3).id == "bored")
    }

    @Test func tiesAreBrokenBySeedDeterministically() throws {
        let library = try Self.choosingLibrary()
        var seen: Set<String> = []
        for seed in UInt64(0)..<64 {
            let first = library.choose(forTheme: nil, recentTriggers: [:], excluding: ["bored"], seed: seed)
            let again = library.choose(forTheme: nil, recentTriggers: [:], excluding: ["bored"], seed: seed)
            #expect(first == again)
            #expect(first.id != "bored")
            seen.insert(first.id)
        }
        #expect(seen == ["stress-only", "stress-and-fatigue", "lonely"])
    }

    @Test func theBundledLibraryOffersAMatchingScenarioForEveryTrigger() throws {
        let library = try Self.bundled.get()
        for trigger in WellbeingTrigger.allCases {
            let chosen = library.choose(forTheme: nil, recentTriggers: [trigger: 4], excluding: [], seed: 42)
            #expect(chosen.triggers.contains(trigger), "\(trigger.rawValue) → \(chosen.id)")
        }
    }
}
