import Foundation
import HearthDomain
import Testing

/// The scenario state machine: stepping, refusing, storing and the closing reflection.
@Suite struct ScenarioSessionTests {
    /// one → two → three → end; at every step "a" is a pause and "b" a redirect, and at "two" a
    /// third choice "c" (connect) leads to "three" as well.
    static func fixture() throws -> PracticeScenario {
        let nodes: [String: [String]] = [
            "one": ["two", "two"], "two": ["three", "three", "three"], "three": ["end", "end"], "end": [],
        ]
        let library = try ScenarioFixtures.library([ScenarioFixtures.scenario(nodes: nodes)])
        return try #require(library.scenario(id: "fixture"))
    }

    @Test func aNewSessionShowsTheStartNode() throws {
        let scenario = try Self.fixture()
        let session = ScenarioSession.start(scenario)
        #expect(session.scenarioID == "fixture")
        #expect(session.nodeID == "one")
        #expect(session.path.isEmpty)
        let view = session.step(in: scenario)
        #expect(view.text == "You are at one.")
        #expect(view.title == scenario.title)
        #expect(view.choices == [
            ScenarioStepView.Choice(id: "a", text: "Take a at one."), ScenarioStepView.Choice(id: "b", text: "Take b at one."),
        ])
        #expect(view.stepNumber == 1)
        #expect(!view.finished)
        #expect(session.reflection(in: scenario) == nil)
    }

    @Test func choosingMovesAlongAndCountsSteps() throws {
        let scenario = try Self.fixture()
        var session = ScenarioSession.start(scenario)
        try session.choose("b", in: scenario)
        #expect(session.nodeID == "two")
        #expect(session.step(in: scenario).stepNumber == 2)
        #expect(session.step(in: scenario).choices?.map(\.id) == ["a", "b", "c"])
        try session.choose("c", in: scenario)
        try session.choose("a", in: scenario)
        let end = session.step(in: scenario)
        #expect(end.finished)
        #expect(end.choices == nil)
        #expect(end.text == "The end of end.")
        #expect(end.stepNumber == 4)
        #expect(session.isFinished(in: scenario))
        #expect(session.path.map(\.choiceID) == ["b", "c", "a"])
        #expect(session.path.map(\.nodeID) == ["one", "two", "three"])
    }

    @Test func anUnknownChoiceIsRefusedNamingTheAllowedOnes() throws {
        let scenario = try Self.fixture()
        var session = ScenarioSession.start(scenario)
        let before = session
        #expect(throws: ScenarioChoiceError.unknownChoice("z", allowed: ["a", "b"])) {
            try session.choose("z", in: scenario)
        }
        #expect(session == before)
        #expect(ScenarioChoiceError.unknownChoice("z", allowed: ["a", "b"]).description.contains(#""a", "b""#))
    }

    @Test func aChoiceAfterTheEndIsRefused() throws {
        let scenario = try Self.fixture()
        var session = ScenarioSession.start(scenario)
        for choice in ["a", "a", "a"] { try session.choose(choice, in: scenario) }
        let finished = session
        #expect(throws: ScenarioChoiceError.finished(scenarioID: "fixture")) {
            try session.choose("a", in: scenario)
        }
        #expect(session == finished)
    }

    @Test func aSessionIsRefusedByAnotherScenario() throws {
        let scenario = try Self.fixture()
        let library = try ScenarioFixtures.library([
            ScenarioFixtures.scenario(id: "elsewhere", nodes: ScenarioFixtures.straightNodes)
        ])
        let other = try #require(library.scenario(id: "elsewhere"))
        var session = ScenarioSession.start(scenario)
        #expect(throws: ScenarioChoiceError.notInScenario(scenarioID: "elsewhere", nodeID: "one")) {
            try session.choose("a", in: other)
        }
        #expect(!session.isConsistent(with: other))
        #expect(session.step(in: other).finished)
        #expect(session.step(in: other).choices == nil)
    }

    @Test func theReflectionCountsKindsAndKeepsInsightsInOrder() throws {
        let scenario = try Self.fixture()
        var session = ScenarioSession.start(scenario)
        try session.choose("a", in: scenario)
        #expect(session.reflection(in: scenario) == nil)
        try session.choose("c", in: scenario)
        try session.choose("a", in: scenario)
        let reflection = try #require(session.reflection(in: scenario))
        #expect(reflection.scenarioID == "fixture")
        #expect(reflection.counts == [.pause: 2, .redirect: 0, .connect: 1, .impulse: 0])
        #expect(reflection.insights == [
            "Choice a at one shows something.", "Choice c at two shows something.", "Choice a at three shows something.",
        ])
        #expect(
            reflection.summary
                == "You paused twice and reached out once: each of those left a little space between the urge and what you did next.")

        var again = ScenarioSession.start(scenario)
        for choice in ["a", "c", "a"] { try again.choose(choice, in: scenario) }
        #expect(again.reflection(in: scenario) == reflection)
    }

    @Test func theSummaryIsBuiltFromTheCountsAlone() {
        #expect(
            ScenarioReflection.summary(for: [.pause: 1, .redirect: 2, .impulse: 1])
                == "You paused once, turned your attention elsewhere twice and went with the urge once: the urge set the pace at times, and you still found other ways to respond.")
        #expect(
            ScenarioReflection.summary(for: [.impulse: 3])
                == "You went with the urge three times: seeing how that unfolds, without judging it, is exactly what practice is for.")
        #expect(
            ScenarioReflection.summary(for: [.connect: 4, .pause: 0])
                == "You reached out four times: each of those left a little space between the urge and what you did next.")
        #expect(ScenarioReflection.summary(for: [.redirect: 7]).hasPrefix("You turned your attention elsewhere 7 times: "))
        #expect(ScenarioReflection.summary(for: [:]) == "No choices were made in this practice yet.")
    }

    @Test func aStoredSessionRoundTripsAndIsCheckedAgainstTheScenario() throws {
        let scenario = try Self.fixture()
        var session = ScenarioSession.start(scenario)
        try session.choose("b", in: scenario)
        let data = try JSONEncoder().encode(session)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["scenario_id", "node_id", "path"])
        let restored = try JSONDecoder().decode(ScenarioSession.self, from: data)
        #expect(restored == session)
        #expect(restored.isConsistent(with: scenario))

        // A session whose recorded path does not lead to its node (an edited file, or a
        // tampered client) is not consistent.
        let tampered = Data(
            #"{"scenario_id": "fixture", "node_id": "three", "path": [{"node_id": "one", "choice_id": "a"}]}"#.utf8)
        let stale = try JSONDecoder().decode(ScenarioSession.self, from: tampered)
        #expect(!stale.isConsistent(with: scenario))
        #expect(stale.reflection(in: scenario) == nil)
    }

    @Test func theStepViewEncodesWithSnakeCaseKeys() throws {
        let scenario = try Self.fixture()
        let data = try JSONEncoder().encode(ScenarioSession.start(scenario).step(in: scenario))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["scenario_id", "node_id", "title", "text", "choices", "step_number", "finished"])
    }

    @Test func everyPathOfEveryBundledScenarioWalksToAReflection() throws {
        for scenario in try ScenarioLibrary.bundled().scenarios {
            var walked = 0
            func walk(_ session: ScenarioSession) throws {
                let view = session.step(in: scenario)
                #expect(view.stepNumber == session.path.count + 1)
                guard let choices = view.choices else {
                    #expect(view.finished)
                    #expect(ScenarioLibrary.stepsPerPath.contains(session.path.count), "\(scenario.id): \(session.path)")
                    let reflection = try #require(session.reflection(in: scenario), "\(scenario.id)")
                    #expect(reflection.counts.values.reduce(0, +) == session.path.count)
                    #expect(reflection.insights.count == session.path.count)
                    #expect(reflection.summary.hasPrefix("You "))
                    #expect(session.isConsistent(with: scenario))
                    walked += 1
                    return
                }
                #expect(!view.finished)
                #expect(session.path.count < ScenarioLibrary.stepsPerPath.upperBound, "\(scenario.id) runs past six choices")
                guard session.path.count < ScenarioLibrary.stepsPerPath.upperBound else { return }
                for choice in choices {
                    var next = session
                    try next.choose(choice.id, in: scenario)
                    try walk(next)
                }
            }
            try walk(ScenarioSession.start(scenario))
            #expect(walked >= 2, "\(scenario.id)")
        }
    }
}
