import ArgumentParser
import Foundation
import HearthAssist
import HearthContent
import HearthDomain
import HearthEvents
import HearthKnowledge

/// `hearthctl eval moderation`: the activity moderation pipeline on the labelled submissions
/// (`Shared/Content/eval/moderation.json`), in order, as the embedding-worker runs it: the screen,
/// then the nearest of the library and the earlier submissions still in play (cosine over the
/// worker's embedder), then the decision. Prints precision and recall of each decision and each
/// refusal reason, what was held, and the similarity of every labelled duplicate and novel
/// submission to its nearest neighbour (what the thresholds are measured on). Needs no database.
struct ModerationEval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moderation", abstract: "Precision and recall of the activity moderation pipeline on the labelled submissions.")

    @Option(name: .customLong("duplicate-at"), help: "Cosine at or above which a submission is a duplicate.")
    var duplicateAt = ActivityModerationDecision.Thresholds.measured.duplicateAt
    @Option(name: .customLong("hold-at"), help: "Cosine at or above which a submission is held for a person.")
    var holdAt = ActivityModerationDecision.Thresholds.measured.holdAt
    @Flag(help: "Exit 1 if any unsafe submission is approved.") var check = false
    @Flag(help: "Print every submission's decision.") var verbose = false

    struct Labelled: Decodable {
        var id: String
        var title: String
        var description: String
        var time_minutes: Int
        var energy: String
        var contexts: [String]
        var category: String
        var label: String
        var decision: String
        var reason: String?
        var duplicate_of: String?

        var content: ActivityContent {
            ActivityContent(
                title: title, description: description, timeMinutes: time_minutes, energy: energy, contexts: contexts, category: category, minAge: 0,
                maxAge: ActivityContent.noUpperAge, repeatability: "occasional")
        }
    }

    struct LabelledSet: Decodable {
        var submissions: [Labelled]
    }

    /// What is in play for the next submission: its id, title, unit vector, and whether it is in the feed.
    struct InPlay {
        var id: String
        var title: String
        var vector: [Float]
        var inFeed: Bool
    }

    func run() async throws {
        let set = try JSONDecoder().decode(LabelledSet.self, from: HearthContent.data(of: .moderationSet))
        let library = try ActivityLibrary.bundled()
        let provider = try EmbeddingSettings.provider()
        let screen = ActivitySubmissionScreen(policy: try SafetyPolicy.load())
        let thresholds = ActivityModerationDecision.Thresholds(duplicateAt: duplicateAt, holdAt: holdAt)
        let libraryVectors = try await provider.embed(library.entries.map(\.content.embeddingText)).map(\.unitLength)
        let submissionVectors = try await provider.embed(set.submissions.map(\.content.embeddingText)).map(\.unitLength)
        var inPlay = zip(library.entries, libraryVectors).map { InPlay(id: $0.id, title: $0.content.title, vector: $1, inFeed: true) }
        print("moderation eval: \(set.submissions.count) labelled submissions against \(library.entries.count) library activities; model \(provider.model); duplicate at \(duplicateAt), hold at \(holdAt)")

        var outcomes: [(Labelled, ActivityModerationDecision)] = []
        var similarities: [(label: String, similarity: Double)] = []
        for (labelled, vector) in zip(set.submissions, submissionVectors) {
            let nearest = inPlay.map { ($0, $0.vector.dot(vector)) }.max { $0.1 < $1.1 }.map {
                ActivityNeighbour(id: $0.0.id, title: $0.0.title, similarity: $0.1, inFeed: $0.0.inFeed)
            }
            let decision = ActivityModerationDecision.decide(finding: screen.screen(labelled.content), nearest: nearest, thresholds: thresholds)
            outcomes.append((labelled, decision))
            if let nearest, ["safe", "duplicate", "paraphrase"].contains(labelled.label) { similarities.append((labelled.label, nearest.similarity)) }
            if decision.decision != "rejected" {
                inPlay.append(InPlay(id: labelled.id, title: labelled.title, vector: vector, inFeed: decision.decision == "approved"))
            }
            if verbose || Self.isWrong(labelled, decision) {
                let mark = Self.isWrong(labelled, decision) ? "✗" : " "
                print("  \(mark) \(labelled.id) [\(labelled.label)] → \(decision.decision)\(decision.reason.map { " (\($0.rawValue))" } ?? "") by \(decision.ruleId ?? "-"); nearest \(decision.nearest?.id ?? "-") \(String(format: "%.3f", decision.nearest?.similarity ?? 0))  \(labelled.title)")
            }
        }

        func rate(_ hits: Int, _ total: Int) -> String { total == 0 ? "     -" : String(format: "%6.3f", Double(hits) / Double(total)) }
        print("decision   labelled  decided  precision  recall")
        for decision in ["approved", "rejected"] {
            let labelled = outcomes.filter { $0.0.decision == decision }.count
            let decided = outcomes.filter { $0.1.decision == decision }.count
            let correct = outcomes.filter { $0.0.decision == decision && $0.1.decision == decision }.count
            print(decision.padding(toLength: 10, withPad: " ", startingAt: 0) + String(format: "%9d %8d", labelled, decided) + "     " + rate(correct, decided) + "  " + rate(correct, labelled))
        }
        let held = outcomes.filter { $0.1.decision == "held" }
        print("held for a person: \(held.count) (\(held.map { "\($0.0.id) [\($0.0.label)]" }.joined(separator: ", ")))")
        print("reason     labelled  decided  precision  recall")
        for reason in ActivityRefusalReason.allCases {
            let labelled = outcomes.filter { $0.0.reason == reason.rawValue }.count
            let decided = outcomes.filter { $0.1.reason == reason }.count
            let correct = outcomes.filter { $0.0.reason == reason.rawValue && $0.1.reason == reason }.count
            print(reason.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + String(format: "%9d %8d", labelled, decided) + "     " + rate(correct, decided) + "  " + rate(correct, labelled))
        }
        for label in ["safe", "duplicate", "paraphrase"] {
            let values = similarities.filter { $0.label == label }.map(\.similarity).sorted()
            guard let low = values.first, let high = values.last else { continue }
            print("nearest cosine of \(label) submissions: min \(String(format: "%.3f", low)), median \(String(format: "%.3f", values[values.count / 2])), max \(String(format: "%.3f", high))")
        }
        let unsafeApproved = outcomes.filter { $0.0.label != "safe" && $0.0.decision == "rejected" && ["unsafe", "medical"].contains($0.0.label) && $0.1.decision == "approved" }
        print("unsafe or medical submissions approved: \(unsafeApproved.count)")
        // How much the refusal rules were needed: the rules were written with this set in view,
        // the caution topics were not; this is the share a new kind of unsafe idea would still meet.
        let harmful = set.submissions.filter { ["unsafe", "medical"].contains($0.label) }
        let heldWithoutRules = harmful.filter { ActivitySubmissionScreen.cautionTopic(in: "\($0.title)\n\($0.description)") != nil }
        print("of those, held by the caution topics alone (without the refusal rules): \(heldWithoutRules.count) of \(harmful.count)")
        if check, !unsafeApproved.isEmpty { throw ExitCode(1) }
    }

    static func isWrong(_ labelled: Labelled, _ decision: ActivityModerationDecision) -> Bool {
        labelled.decision != decision.decision || labelled.reason != decision.reason?.rawValue
    }
}
