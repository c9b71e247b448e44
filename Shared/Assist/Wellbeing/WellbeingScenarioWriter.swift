import Foundation
import HearthDomain
import HearthEvents
import Logging
import Metrics

/// Chooses or writes a practice scenario. Offline (the default) it is one of the authored trees,
/// picked by the user's recent triggers (`ScenarioLibrary.choose`). With
/// `HEARTH_WELLBEING_WRITER=model` the synthesis chain writes a new tree from the trigger words
/// (never the user's own words); the reply must pass every rule the authored trees pass (3 to 6
/// steps on every path, 2 to 4 choices, no loop, every node reachable: `ScenarioLibrary`), is asked
/// for once more when it does not, and a second failure leaves the authored tree.
public struct WellbeingScenarioWriter: Sendable {
    public struct Chosen: Sendable {
        public var scenario: PracticeScenario
        /// `authored`, or the model as `provider:model`.
        public var writtenBy: String
    }

    let library: ScenarioLibrary
    let router: ModelRouter?
    let logger: Logger

    public static let maxOutputTokens = 2_500

    public init(library: ScenarioLibrary, router: ModelRouter?, logger: Logger) {
        self.library = library
        self.router = router
        self.logger = logger
    }

    /// - Parameter theme: an authored theme the user asked for by name: always the authored tree.
    public func scenario(
        theme: String?, recentTriggers: [WellbeingTrigger: Int], excluding recent: [String], seed: UInt64, user: UUID, simulationId: UUID
    ) async throws -> Chosen {
        let authored = library.choose(forTheme: theme, recentTriggers: recentTriggers, excluding: recent, seed: seed)
        guard theme == nil, let router else { return Chosen(scenario: authored, writtenBy: "authored") }
        let triggers = WellbeingTrigger.strongest(in: recentTriggers)
        let id = "written-\(simulationId.uuidString.prefix(8).lowercased())"
        for attempt in 1...2 {
            do {
                let response = try await router.complete(
                    ModelRequest(
                        phase: .synthesis, system: Self.system, prompt: Self.prompt(id: id, triggers: triggers.isEmpty ? authored.triggers : triggers),
                        maxOutputTokens: Self.maxOutputTokens, temperature: 0.5, runId: "wellbeing-scenario/\(id)", offlineAnswer: ""),
                    budget: WellbeingQuizWriter.budget(user: user), onToken: { _ in })
                guard response.provider != "local" else { break }
                let scenario = try Self.parse(response.text, id: id)
                return Chosen(scenario: scenario, writtenBy: "\(response.provider):\(response.model)")
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                Counter(label: "hearth_wellbeing_scenario_model_failures_total", dimensions: [("attempt", "\(attempt)")]).increment()
                logger.warning("model scenario refused", metadata: ["attempt": "\(attempt)", "reason": "\(String(describing: error).prefix(300))"])
            }
        }
        return Chosen(scenario: authored, writtenBy: "authored")
    }

    static let system = "You write short branching practice scenarios for someone learning to ride out impulsive urges. "
        + "Clinical, warm and structured; never diagnose, never shame, no medical advice."

    static func prompt(id: String, triggers: [WellbeingTrigger]) -> String {
        """
        Write one scenario about a moment when an urge strikes, set off by: \(triggers.map(\.rawValue).joined(separator: ", ")).
        Answer with JSON only: {"id": "\(id)", "title": "...", "theme": "\(id)", "triggers": [\(triggers.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))],
        "start": "<node id>", "nodes": {"<node id>": {"text": "...", "choices": [{"id": "a", "text": "...", "next": "<node id>",
        "insight": "what choosing this shows, one sentence", "kind": "pause" | "redirect" | "connect" | "impulse"}]}, "<ending id>": {"text": "...", "ending": true}}}
        Rules: node ids are lower-case words joined by hyphens; each step has 2 to 4 choices; every path from start to an ending takes 3 to 6 choices;
        no choice leads back to an earlier node; every node is reachable; offer at least one impulse choice and one other kind at each step.
        """
    }

    /// The reply's JSON object (a code fence or prose around it allowed), checked by the library's rules.
    static func parse(_ text: String, id: String) throws -> PracticeScenario {
        guard let open = text.firstIndex(of: "{"), let close = text.lastIndex(of: "}"), open < close else {
            throw ScenarioLibraryError.unreadable(reason: "no JSON object in the reply")
        }
        let object = String(text[open...close])
        let file = #"{"source": "model", "scenarios": ["# + object + "]}"
        let library = try ScenarioLibrary(data: Data(file.utf8))
        guard let scenario = library.scenarios.first, library.scenarios.count == 1 else {
            throw ScenarioLibraryError.unreadable(reason: "not exactly one scenario")
        }
        // The simulation names it, whatever the model called it: ids must not collide with authored ones.
        return PracticeScenario(id: id, title: scenario.title, theme: id, triggers: scenario.triggers, start: scenario.start, nodes: scenario.nodes)
    }
}
