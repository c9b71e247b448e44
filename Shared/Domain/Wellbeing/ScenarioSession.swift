import Foundation

/// Where a user is in one practice scenario. A value with no clock, storage or randomness: the
/// route stores it between requests and replays it against the scenario it names.
public struct ScenarioSession: Codable, Sendable, Equatable {
    /// One choice made: at which node, which choice.
    public struct TakenChoice: Codable, Sendable, Equatable {
        public let nodeID: String
        public let choiceID: String

        public init(nodeID: String, choiceID: String) {
            self.nodeID = nodeID
            self.choiceID = choiceID
        }

        enum CodingKeys: String, CodingKey {
            case nodeID = "node_id"
            case choiceID = "choice_id"
        }
    }

    public let scenarioID: String
    public private(set) var nodeID: String
    /// The choices made so far, first to last.
    public private(set) var path: [TakenChoice]

    enum CodingKeys: String, CodingKey {
        case scenarioID = "scenario_id"
        case nodeID = "node_id"
        case path
    }

    public static func start(_ scenario: PracticeScenario) -> ScenarioSession {
        ScenarioSession(scenarioID: scenario.id, nodeID: scenario.start, path: [])
    }

    /// Whether this session is a walk `scenario` allows: same id, each recorded choice offered at
    /// its node and leading to the next, ending at the current node. A session decoded from
    /// storage may predate an edit to the scenario file; the route checks this before using it
    /// and starts afresh when it fails.
    public func isConsistent(with scenario: PracticeScenario) -> Bool {
        guard scenario.id == scenarioID else { return false }
        var current = scenario.start
        for taken in path {
            guard taken.nodeID == current,
                let choice = scenario.nodes[current]?.choices.first(where: { $0.id == taken.choiceID })
            else { return false }
            current = choice.next
        }
        return current == nodeID && scenario.nodes[nodeID] != nil
    }

    public func isFinished(in scenario: PracticeScenario) -> Bool {
        scenario.id == scenarioID && scenario.nodes[nodeID]?.isEnding == true
    }

    /// What to show now. For a session that does not belong to `scenario` (see
    /// `isConsistent(with:)`), the view is empty (no title, no text) and finished, so a client
    /// cannot carry on down a path that no longer exists.
    public func step(in scenario: PracticeScenario) -> ScenarioStepView {
        guard scenario.id == scenarioID, let node = scenario.nodes[nodeID] else {
            return ScenarioStepView(
                scenarioID: scenarioID, nodeID: nodeID, title: "", text: "", choices: nil,
                stepNumber: path.count + 1, finished: true)
        }
        return ScenarioStepView(
            scenarioID: scenarioID, nodeID: nodeID, title: scenario.title, text: node.text,
            choices: node.isEnding ? nil : node.choices.map { ScenarioStepView.Choice(id: $0.id, text: $0.text) },
            stepNumber: path.count + 1, finished: node.isEnding)
    }

    /// Takes the choice `choiceID` at the current node. On a throw the session is unchanged.
    public mutating func choose(_ choiceID: String, in scenario: PracticeScenario) throws(ScenarioChoiceError) {
        guard scenario.id == scenarioID, let node = scenario.nodes[nodeID] else {
            throw .notInScenario(scenarioID: scenario.id, nodeID: nodeID)
        }
        guard !node.isEnding else { throw .finished(scenarioID: scenarioID) }
        guard let choice = node.choices.first(where: { $0.id == choiceID }) else {
            throw .unknownChoice(choiceID, allowed: node.choices.map(\.id))
        }
        path.append(TakenChoice(nodeID: nodeID, choiceID: choice.id))
        nodeID = choice.next
    }

    /// What the walk showed, once it has reached an ending; nil before that, or when the session
    /// does not fit `scenario`.
    public func reflection(in scenario: PracticeScenario) -> ScenarioReflection? {
        guard isFinished(in: scenario), isConsistent(with: scenario) else { return nil }
        var counts = Dictionary(uniqueKeysWithValues: ScenarioChoiceKind.allCases.map { ($0, 0) })
        var insights: [String] = []
        for taken in path {
            // Present: `isConsistent` walked the same lookups.
            guard let choice = scenario.nodes[taken.nodeID]?.choices.first(where: { $0.id == taken.choiceID }) else {
                return nil
            }
            counts[choice.kind, default: 0] += 1
            insights.append(choice.insight)
        }
        return ScenarioReflection(
            scenarioID: scenarioID, counts: counts, insights: insights, summary: ScenarioReflection.summary(for: counts))
    }
}

/// One screen of a scenario: the text, and the choices unless it is an ending.
public struct ScenarioStepView: Codable, Sendable, Equatable {
    public struct Choice: Codable, Sendable, Equatable {
        public let id: String
        public let text: String

        public init(id: String, text: String) {
            self.id = id
            self.text = text
        }
    }

    public let scenarioID: String
    public let nodeID: String
    public let title: String
    public let text: String
    /// Nil at an ending.
    public let choices: [Choice]?
    /// 1 at the start, one more for each choice made; an ending reached after three choices is step 4.
    public let stepNumber: Int
    public let finished: Bool

    public init(
        scenarioID: String, nodeID: String, title: String, text: String, choices: [Choice]?, stepNumber: Int, finished: Bool
    ) {
        self.scenarioID = scenarioID
        self.nodeID = nodeID
        self.title = title
        self.text = text
        self.choices = choices
        self.stepNumber = stepNumber
        self.finished = finished
    }

    enum CodingKeys: String, CodingKey {
        case scenarioID = "scenario_id"
        case nodeID = "node_id"
        case title, text, choices
        case stepNumber = "step_number"
        case finished
    }
}

/// Why a choice was not taken.
public enum ScenarioChoiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The current node offers no choice with this id.
    case unknownChoice(String, allowed: [String])
    /// The session is already at an ending.
    case finished(scenarioID: String)
    /// The session names another scenario, or a node the scenario does not have.
    case notInScenario(scenarioID: String, nodeID: String)

    public var description: String {
        switch self {
        case .unknownChoice(let choice, let allowed):
            return "no choice \"\(choice)\" here; choose one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))"
        case .finished(let scenarioID):
            return "scenario \"\(scenarioID)\" has already reached its ending"
        case .notInScenario(let scenarioID, let nodeID):
            return "the session does not belong to scenario \"\(scenarioID)\" (node \"\(nodeID)\")"
        }
    }
}

/// The look back at the end of a scenario: how the choices split by kind, what each one showed,
/// and one sentence tying them together.
public struct ScenarioReflection: Codable, Sendable, Equatable {
    public let scenarioID: String
    /// Every kind, zero included, so clients can draw the same bars every time.
    public let counts: [ScenarioChoiceKind: Int]
    /// The insight of each choice taken, in the order taken.
    public let insights: [String]
    public let summary: String

    public init(scenarioID: String, counts: [ScenarioChoiceKind: Int], insights: [String], summary: String) {
        self.scenarioID = scenarioID
        self.counts = counts
        self.insights = insights
        self.summary = summary
    }

    enum CodingKeys: String, CodingKey {
        case scenarioID = "scenario_id"
        case counts, insights, summary
    }

    /// "You paused twice and reached out once: …". Kinds appear in `ScenarioChoiceKind` order and
    /// the closing clause depends only on whether the urge led and whether anything else did, so
    /// the same counts always give the same words. It describes what happened and never grades it: a walk where the urge
    /// won every time is still practice.
    public static func summary(for counts: [ScenarioChoiceKind: Int]) -> String {
        let parts = ScenarioChoiceKind.allCases.compactMap { kind -> String? in
            let count = counts[kind] ?? 0
            guard count > 0 else { return nil }
            return "\(phrase(for: kind)) \(times(count))"
        }
        guard !parts.isEmpty else { return "No choices were made in this practice yet." }
        let listed = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        let impulses = counts[.impulse] ?? 0
        let others = ScenarioChoiceKind.allCases.filter { $0 != .impulse }.reduce(0) { $0 + max(counts[$1] ?? 0, 0) }
        let closing: String
        if impulses <= 0 {
            closing = "each of those left a little space between the urge and what you did next."
        } else if others > 0 {
            closing = "the urge set the pace at times, and you still found other ways to respond."
        } else {
            closing = "seeing how that unfolds, without judging it, is exactly what practice is for."
        }
        return "You \(listed): \(closing)"
    }

    private static func phrase(for kind: ScenarioChoiceKind) -> String {
        switch kind {
        case .pause: return "paused"
        case .redirect: return "turned your attention elsewhere"
        case .connect: return "reached out"
        case .impulse: return "went with the urge"
        }
    }

    private static func times(_ count: Int) -> String {
        let words = [1: "once", 2: "twice", 3: "three times", 4: "four times", 5: "five times", 6: "six times"]
        return words[count] ?? "\(count) times"
    }
}
