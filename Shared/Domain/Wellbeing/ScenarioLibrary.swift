import Foundation
import HearthContent
import HearthEvents

/// What a choice in a practice scenario does with the urge. The reflection at the end counts
/// these, so the vocabulary is closed: a new kind needs a phrase in `ScenarioReflection` too.
public enum ScenarioChoiceKind: String, Codable, Sendable, CaseIterable, CodingKeyRepresentable {
    /// Stopping to notice before acting.
    case pause
    /// Putting the energy into something else.
    case redirect
    /// Turning to another person.
    case connect
    /// Going with the urge.
    case impulse
}

/// One option at a step of a scenario.
public struct ScenarioChoice: Codable, Sendable, Equatable {
    /// Unique within its node ("a", "b", …); what a client sends back to pick it.
    public let id: String
    public let text: String
    /// The node this choice leads to.
    public let next: String
    /// One sentence on what the choice shows, gathered into the reflection at the end.
    public let insight: String
    public let kind: ScenarioChoiceKind

    public init(id: String, text: String, next: String, insight: String, kind: ScenarioChoiceKind) {
        self.id = id
        self.text = text
        self.next = next
        self.insight = insight
        self.kind = kind
    }
}

/// A step (text and two to four choices) or an ending (text alone). Encoded as the file writes
/// it: a step carries `choices`, an ending carries `"ending": true` instead.
public struct ScenarioNode: Codable, Sendable, Equatable {
    public let text: String
    /// Empty exactly when the node is an ending.
    public let choices: [ScenarioChoice]

    public var isEnding: Bool { choices.isEmpty }

    public static func step(_ text: String, choices: [ScenarioChoice]) -> ScenarioNode {
        ScenarioNode(text: text, choices: choices)
    }

    public static func ending(_ text: String) -> ScenarioNode {
        ScenarioNode(text: text, choices: [])
    }

    private init(text: String, choices: [ScenarioChoice]) {
        self.text = text
        self.choices = choices
    }

    enum CodingKeys: String, CodingKey {
        case text, choices, ending
    }

    /// Shape only; the rules (two to four choices, targets that exist, path lengths) are
    /// `ScenarioLibrary`'s, which reads the file itself so it can say where a rule is broken.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        let choices = try container.decodeIfPresent([ScenarioChoice].self, forKey: .choices) ?? []
        let ending = try container.decodeIfPresent(Bool.self, forKey: .ending) ?? false
        guard ending == choices.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .ending, in: container, debugDescription: "a node is either an ending or has choices")
        }
        self.choices = choices
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        if isEnding {
            try container.encode(true, forKey: .ending)
        } else {
            try container.encode(choices, forKey: .choices)
        }
    }
}

/// An authored branching story from `wellbeing/scenarios.json`: a situation in which an urge
/// turns up, walked one choice at a time from `start` to an ending.
public struct PracticeScenario: Codable, Sendable, Equatable, Identifiable {
    /// Kebab-case and stable: sessions and "recently played" lists store it.
    public let id: String
    public let title: String
    /// A short kebab-case key ("work-stress") that a client can ask for by name; unique in the library.
    public let theme: String
    /// The one to three triggers the situation is about, which `ScenarioLibrary.choose` matches
    /// against the user's recent check-ins.
    public let triggers: [WellbeingTrigger]
    public let start: String
    public let nodes: [String: ScenarioNode]

    public init(
        id: String, title: String, theme: String, triggers: [WellbeingTrigger], start: String, nodes: [String: ScenarioNode]
    ) {
        self.id = id
        self.title = title
        self.theme = theme
        self.triggers = triggers
        self.start = start
        self.nodes = nodes
    }

    public func node(_ id: String) -> ScenarioNode? {
        nodes[id]
    }
}

/// Why a scenarios file was refused. A scenario with a dangling `next` or a loop would strand a
/// user mid-exercise, so the whole file is refused, naming where to look.
public enum ScenarioLibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not JSON, or not readable at all.
    case unreadable(reason: String)
    /// A file-level field (`source`, `scenarios`) is missing or malformed.
    case invalidFile(field: String, reason: String)
    /// `scenario` is the scenario's id, or its position ("scenarios[3]") when it has no usable id;
    /// `node` is nil when the fault is in the scenario's own fields. A choice's fields are named by
    /// position within the node ("choices[1].next").
    case invalidScenario(scenario: String, node: String?, field: String, reason: String)
    /// The bundled library names a trigger no scenario covers, so a user whose check-ins mostly
    /// mention it would never be offered a scenario about it.
    case uncoveredTrigger(WellbeingTrigger)

    public var description: String {
        let file = ScenarioLibrary.fileName
        switch self {
        case .unreadable(let reason):
            return "\(file): cannot read: \(reason)"
        case .invalidFile(let field, let reason):
            return "\(file): field \"\(field)\": \(reason)"
        case .invalidScenario(let scenario, let node, let field, let reason):
            let nodePart = node.map { ", node \"\($0)\"" } ?? ""
            return "\(file): scenario \"\(scenario)\"\(nodePart), field \"\(field)\": \(reason)"
        case .uncoveredTrigger(let trigger):
            return "\(file): no scenario lists the trigger \"\(trigger.rawValue)\""
        }
    }
}

/// The practice scenarios: checked on load, looked up by id or theme, and picked for a user from
/// their recent triggers. Pure and immutable: load once, share freely.
public struct ScenarioLibrary: Sendable {
    public static let fileName = "scenarios.json"
    /// Long enough to be a practice rather than a quiz, short enough to finish on a phone while
    /// the urge is still there.
    public static let stepsPerPath = 3...6
    /// One choice is no choice; more than four is too many to weigh in the moment.
    public static let choicesPerStep = 2...4
    public static let triggersPerScenario = 1...3

    /// Provenance of the file (its `source`).
    public let source: String
    /// In the file's order.
    public let scenarios: [PracticeScenario]
    private let positionByID: [String: Int]
    private let positionByTheme: [String: Int]

    /// Parsed once per process: the file ships with the binary, so a second read could not differ.
    private static let bundledResult = Result { () throws(ScenarioLibraryError) -> ScenarioLibrary in
        let data: Data
        do {
            data = try HearthContent.wellbeing(fileName)
        } catch {
            throw .unreadable(reason: "\(error)")
        }
        let library = try ScenarioLibrary(data: data)
        let covered = Set(library.scenarios.flatMap(\.triggers))
        if let missing = WellbeingTrigger.allCases.first(where: { !covered.contains($0) }) {
            throw .uncoveredTrigger(missing)
        }
        return library
    }

    /// The bundled `wellbeing/scenarios.json`. Beyond what `init(data:)` checks, every trigger
    /// must be covered by some scenario.
    public static func bundled() throws(ScenarioLibraryError) -> ScenarioLibrary {
        try bundledResult.get()
    }

    /// Reads and checks a scenarios file `{"source": …, "scenarios": […]}`; see
    /// `ScenarioLibraryError` for what is refused.
    public init(data: Data) throws(ScenarioLibraryError) {
        let source: String, entries: [JSONValue]
        do {
            (source, entries) = try WellbeingContentFile.entries(of: data, list: "scenarios")
        } catch {
            switch error {
            case .unreadable(let reason): throw .unreadable(reason: reason)
            case .invalidFile(let field, let reason): throw .invalidFile(field: field, reason: reason)
            }
        }

        var scenarios: [PracticeScenario] = []
        var positionByID: [String: Int] = [:]
        var positionByTheme: [String: Int] = [:]
        for (position, entry) in entries.enumerated() {
            let scenario = try Self.parseScenario(entry, position: position)
            if let other = positionByID[scenario.id] {
                throw .invalidScenario(
                    scenario: scenario.id, node: nil, field: "id", reason: "repeats the id of scenarios[\(other)]")
            }
            // One scenario per theme, so asking for a theme by name has exactly one answer.
            if let other = positionByTheme[scenario.theme] {
                throw .invalidScenario(
                    scenario: scenario.id, node: nil, field: "theme",
                    reason: "\"\(scenario.theme)\" is also the theme of \(scenarios[other].id)")
            }
            positionByID[scenario.id] = position
            positionByTheme[scenario.theme] = position
            scenarios.append(scenario)
        }
        self.source = source
        self.scenarios = scenarios
        self.positionByID = positionByID
        self.positionByTheme = positionByTheme
    }

    public func scenario(id: String) -> PracticeScenario? {
        positionByID[id].map { scenarios[$0] }
    }

    /// Nil for a theme no scenario has, which a route should refuse rather than quietly replace.
    public func scenario(theme: String) -> PracticeScenario? {
        positionByTheme[theme].map { scenarios[$0] }
    }

    /// The scenario to offer next.
    ///
    /// A known `theme` wins outright, even if it was played recently: the user asked for it. An
    /// unknown or nil theme falls back to matching: each scenario scores the sum of
    /// `recentTriggers` counts over its triggers, and among equal sums the one whose triggers are
    /// more of them recent (fewer unrelated triggers) is preferred. Ids in `recent` (newest first)
    /// are skipped; when they cover the whole library the oldest of them become eligible again, so
    /// there is always an answer. Remaining ties are broken by `seed`, so the same inputs always
    /// give the same scenario.
    public func choose(
        forTheme theme: String?, recentTriggers: [WellbeingTrigger: Int], excluding recent: [String], seed: UInt64
    ) -> PracticeScenario {
        if let theme, let asked = scenario(theme: theme) { return asked }

        var seen: Set<String> = []
        let knownRecent = recent.filter { positionByID[$0] != nil && seen.insert($0).inserted }
        // At most all but one are excluded, so a library of one still answers.
        let excluded = Set(knownRecent.prefix(scenarios.count - 1))
        let candidates = scenarios.filter { !excluded.contains($0.id) }

        func score(_ scenario: PracticeScenario) -> MatchScore {
            let counts = scenario.triggers.map { max(recentTriggers[$0] ?? 0, 0) }
            return MatchScore(total: counts.reduce(0, +), matched: counts.filter { $0 > 0 }.count, size: scenario.triggers.count)
        }
        let scored = candidates.map { (scenario: $0, score: score($0)) }
        // Non-empty: see `excluded`.
        let best = scored.map(\.score).max()!
        let tied = scored.filter { $0.score == best }.map(\.scenario).sorted { $0.id < $1.id }
        var random = SplitMix64(seed: seed)
        return tied[Int(random.next() % UInt64(tied.count))]
    }

    // MARK: - Matching

    /// Ordered by `total`, then by the share of the scenario's triggers that were recent.
    private struct MatchScore: Comparable {
        let total: Int
        let matched: Int
        let size: Int

        static func == (lhs: MatchScore, rhs: MatchScore) -> Bool {
            lhs.total == rhs.total && lhs.matched * rhs.size == rhs.matched * lhs.size
        }

        static func < (lhs: MatchScore, rhs: MatchScore) -> Bool {
            if lhs.total != rhs.total { return lhs.total < rhs.total }
            return lhs.matched * rhs.size < rhs.matched * lhs.size
        }
    }

    /// A seeded generator of our own: the system generator cannot be replayed, and the standard
    /// library's bounded-random algorithm is not promised to stay the same across releases.
    private struct SplitMix64 {
        private var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    // MARK: - Checking

    /// Reads fields of one JSON object and phrases refusals with where it sits.
    private struct FieldReader {
        let scenario: String
        let node: String?
        let fields: [String: JSONValue]
        /// Prefix for field names ("choices[1]."), so a choice's fields read as paths in the node.
        var prefix = ""

        func refuse(_ field: String, _ reason: String) -> ScenarioLibraryError {
            .invalidScenario(scenario: scenario, node: node, field: prefix + field, reason: reason)
        }

        func onlyKnown(_ known: [String]) throws(ScenarioLibraryError) {
            // A misspelt key ("insigth") must not pass as a missing optional one.
            if let unknown = fields.keys.filter({ !known.contains($0) }).sorted().first {
                throw refuse(unknown, "is not a known field")
            }
        }

        /// A required string with no surrounding spaces.
        func text(_ key: String) throws(ScenarioLibraryError) -> String {
            guard let value = fields[key] else { throw refuse(key, "is missing") }
            guard case .string(let text) = value else { throw refuse(key, "must be a string") }
            guard !text.isEmpty, text == text.trimmingCharacters(in: .whitespacesAndNewlines) else {
                throw refuse(key, "must be non-empty without surrounding spaces")
            }
            return text
        }

        func key(_ key: String) throws(ScenarioLibraryError) -> String {
            let value = try text(key)
            guard ScenarioLibrary.isKebabCase(value) else {
                throw refuse(key, "\"\(value)\" must be lower-case letters and digits joined by single hyphens")
            }
            return value
        }
    }

    static func isKebabCase(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return !text.isEmpty && !parts.contains(where: \.isEmpty)
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    private static func parseScenario(_ value: JSONValue, position: Int) throws(ScenarioLibraryError) -> PracticeScenario {
        let placeholder = "scenarios[\(position)]"
        guard case .object(let fields) = value else {
            throw .invalidScenario(scenario: placeholder, node: nil, field: "-", reason: "must be a JSON object")
        }
        let id = try FieldReader(scenario: placeholder, node: nil, fields: fields).key("id")
        let reader = FieldReader(scenario: id, node: nil, fields: fields)
        try reader.onlyKnown(["id", "title", "theme", "triggers", "start", "nodes"])
        let title = try reader.text("title")
        let theme = try reader.key("theme")
        let triggers = try parseTriggers(reader)
        let start = try reader.text("start")

        guard case .object(let rawNodes)? = fields["nodes"], !rawNodes.isEmpty else {
            throw reader.refuse("nodes", fields["nodes"] == nil ? "is missing" : "must be a non-empty object of node id to node")
        }
        let nodeIDs = Set(rawNodes.keys)
        var nodes: [String: ScenarioNode] = [:]
        // Sorted so that a file with several faults always reports the same one first.
        for nodeID in rawNodes.keys.sorted() {
            nodes[nodeID] = try parseNode(rawNodes[nodeID]!, id: nodeID, scenario: id, nodeIDs: nodeIDs)
        }
        guard nodes[start] != nil else {
            throw reader.refuse("start", "\"\(start)\" is not a node of this scenario")
        }
        try checkGraph(nodes, start: start, scenario: id)
        return PracticeScenario(id: id, title: title, theme: theme, triggers: triggers, start: start, nodes: nodes)
    }

    private static func parseTriggers(_ reader: FieldReader) throws(ScenarioLibraryError) -> [WellbeingTrigger] {
        guard let value = reader.fields["triggers"] else { throw reader.refuse("triggers", "is missing") }
        guard case .array(let items) = value else { throw reader.refuse("triggers", "must be a list of trigger names") }
        guard triggersPerScenario.contains(items.count) else {
            throw reader.refuse(
                "triggers",
                "lists \(items.count); a scenario needs \(triggersPerScenario.lowerBound) to \(triggersPerScenario.upperBound)")
        }
        var triggers: [WellbeingTrigger] = []
        for (index, item) in items.enumerated() {
            let allowed = WellbeingTrigger.allCases.map(\.rawValue).joined(separator: ", ")
            guard case .string(let name) = item, let trigger = WellbeingTrigger(rawValue: name) else {
                throw reader.refuse("triggers[\(index)]", "must be one of \(allowed)")
            }
            guard !triggers.contains(trigger) else {
                throw reader.refuse("triggers[\(index)]", "\"\(name)\" is listed twice")
            }
            triggers.append(trigger)
        }
        return triggers
    }

    private static func parseNode(
        _ value: JSONValue, id nodeID: String, scenario: String, nodeIDs: Set<String>
    ) throws(ScenarioLibraryError) -> ScenarioNode {
        guard isKebabCase(nodeID) else {
            throw .invalidScenario(
                scenario: scenario, node: nodeID, field: "-", reason: "node ids must be lower-case letters and digits joined by single hyphens")
        }
        guard case .object(let fields) = value else {
            throw .invalidScenario(scenario: scenario, node: nodeID, field: "-", reason: "must be a JSON object")
        }
        let reader = FieldReader(scenario: scenario, node: nodeID, fields: fields)
        try reader.onlyKnown(["text", "choices", "ending"])
        let text = try reader.text("text")

        if let ending = fields["ending"] {
            guard ending == .bool(true) else {
                throw reader.refuse("ending", "must be true when present; a step has \"choices\" instead")
            }
            guard fields["choices"] == nil else {
                throw reader.refuse("choices", "an ending has no choices")
            }
            return .ending(text)
        }

        let range = choicesPerStep
        guard let rawChoices = fields["choices"] else {
            throw reader.refuse(
                "choices", "is missing: a step needs \(range.lowerBound) to \(range.upperBound) choices, an ending \"ending\": true")
        }
        guard case .array(let items) = rawChoices else { throw reader.refuse("choices", "must be a list of choices") }
        guard range.contains(items.count) else {
            let noun = items.count == 1 ? "choice" : "choices"
            throw reader.refuse("choices", "has \(items.count) \(noun); a step needs \(range.lowerBound) to \(range.upperBound)")
        }

        var choices: [ScenarioChoice] = []
        for (index, item) in items.enumerated() {
            guard case .object(let choiceFields) = item else {
                throw reader.refuse("choices[\(index)]", "must be a JSON object")
            }
            var choiceReader = FieldReader(scenario: scenario, node: nodeID, fields: choiceFields)
            choiceReader.prefix = "choices[\(index)]."
            try choiceReader.onlyKnown(["id", "text", "next", "insight", "kind"])
            let choiceID = try choiceReader.key("id")
            if let other = choices.firstIndex(where: { $0.id == choiceID }) {
                throw choiceReader.refuse("id", "\"\(choiceID)\" is also the id of choices[\(other)]")
            }
            let choiceText = try choiceReader.text("text")
            let next = try choiceReader.text("next")
            guard nodeIDs.contains(next) else {
                throw choiceReader.refuse("next", "\"\(next)\" is not a node of this scenario")
            }
            let insight = try choiceReader.text("insight")
            let kindName = try choiceReader.text("kind")
            guard let kind = ScenarioChoiceKind(rawValue: kindName) else {
                throw choiceReader.refuse(
                    "kind", "\"\(kindName)\" is not one of \(ScenarioChoiceKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            choices.append(ScenarioChoice(id: choiceID, text: choiceText, next: next, insight: insight, kind: kind))
        }
        return .step(text, choices: choices)
    }

    /// Every node reachable from `start`, no loops, and every walk from `start` to an ending
    /// takes `stepsPerPath` choices. With no loops and every step offering choices, every walk
    /// does end at an ending, so checking the endings' depths covers every path.
    private static func checkGraph(_ nodes: [String: ScenarioNode], start: String, scenario: String) throws(ScenarioLibraryError) {
        var reached: Set<String> = [start]
        var frontier = [start]
        while let nodeID = frontier.popLast() {
            for choice in nodes[nodeID]!.choices where reached.insert(choice.next).inserted {
                frontier.append(choice.next)
            }
        }
        if let stranded = nodes.keys.filter({ !reached.contains($0) }).sorted().first {
            throw .invalidScenario(
                scenario: scenario, node: stranded, field: "nodes", reason: "no path from start \"\(start)\" leads here")
        }

        // Depth-first from start: a choice leading to a node still on the stack closes a loop.
        // Post-order gives a topological order for the depth pass.
        enum Mark { case onStack, done }
        var marks: [String: Mark] = [:]
        var stack: [String] = []
        var postOrder: [String] = []
        func visit(_ nodeID: String) throws(ScenarioLibraryError) {
            marks[nodeID] = .onStack
            stack.append(nodeID)
            for (index, choice) in nodes[nodeID]!.choices.enumerated() {
                switch marks[choice.next] {
                case .onStack:
                    let loop = stack[stack.lastIndex(of: choice.next)!...] + [choice.next]
                    throw .invalidScenario(
                        scenario: scenario, node: nodeID, field: "choices[\(index)].next",
                        reason: "leads back to \"\(choice.next)\", a loop: \(loop.joined(separator: " → "))")
                case .done:
                    continue
                case nil:
                    try visit(choice.next)
                }
            }
            stack.removeLast()
            marks[nodeID] = .done
            postOrder.append(nodeID)
        }
        try visit(start)

        // Shortest and longest number of choices from start to each node, with the node each was
        // reached from, so a refusal can show the offending path.
        var shortest: [String: (depth: Int, from: String?)] = [start: (0, nil)]
        var longest: [String: (depth: Int, from: String?)] = [start: (0, nil)]
        for nodeID in postOrder.reversed() {
            let here = (shortest[nodeID]!.depth, longest[nodeID]!.depth)
            for choice in nodes[nodeID]!.choices {
                if shortest[choice.next].map({ here.0 + 1 < $0.depth }) ?? true {
                    shortest[choice.next] = (here.0 + 1, nodeID)
                }
                if longest[choice.next].map({ here.1 + 1 > $0.depth }) ?? true {
                    longest[choice.next] = (here.1 + 1, nodeID)
                }
            }
        }
        func path(to nodeID: String, in table: [String: (depth: Int, from: String?)]) -> String {
            var path = [nodeID]
            while let from = table[path[0]]?.from { path.insert(from, at: 0) }
            return path.joined(separator: " → ")
        }
        let allowed = "every path needs \(stepsPerPath.lowerBound) to \(stepsPerPath.upperBound) choices"
        for nodeID in postOrder.reversed() where nodes[nodeID]!.isEnding {
            let least = shortest[nodeID]!.depth
            let most = longest[nodeID]!.depth
            if least < stepsPerPath.lowerBound {
                throw .invalidScenario(
                    scenario: scenario, node: nodeID, field: "ending",
                    reason: "is reached after only \(least) \(least == 1 ? "choice" : "choices") (\(path(to: nodeID, in: shortest))); \(allowed)")
            }
            if most > stepsPerPath.upperBound {
                throw .invalidScenario(
                    scenario: scenario, node: nodeID, field: "ending",
                    reason: "is reached after \(most) choices (\(path(to: nodeID, in: longest))); \(allowed)")
            }
        }
    }
}
