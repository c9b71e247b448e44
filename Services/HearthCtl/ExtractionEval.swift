import ArgumentParser
import Foundation
import HearthDomain

extension EvalCommand {
    /// `hearthctl eval extraction`: precision and recall of the rule-based profile extractor per
    /// fact kind and overall over `Shared/Content/eval/extraction.json`. Pure computation; needs
    /// neither Postgres nor Kafka.
    struct ExtractionEval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "extraction", abstract: "Precision and recall of profile fact extraction per kind and overall.")

        @Flag(help: "Print every message whose facts differ from its labels.") var verbose = false
        @Option(help: "Exit 1 when overall precision falls below this.") var minPrecision: Double?
        @Option(help: "Exit 1 when overall recall falls below this.") var minRecall: Double?

        func run() async throws {
            let messages = try ExtractionEvaluation.labelledMessages()
            let result = ExtractionEvaluation.run(try ProfileFactExtractor.bundled(), on: messages)
            print("profile fact extraction over \(result.messages) labelled messages")
            func line(_ name: String, _ score: ExtractionEvaluation.Score) -> String {
                let counts = "tp \(score.truePositives)  fp \(score.falsePositives)  fn \(score.falseNegatives)"
                return name.padding(toLength: 13, withPad: " ", startingAt: 0)
                    + String(format: "precision %.3f  recall %.3f  f1 %.3f  ", score.precision, score.recall, score.f1) + counts
            }
            for kind in ProfileFactKind.allCases {
                if let score = result.perKind[kind] { print(line(kind.rawValue, score)) }
            }
            print(line("removals", result.removals))
            print(line("overall", result.overall))
            if verbose {
                for miss in result.misses {
                    print("\n\(miss.text)")
                    for fact in miss.missing { print("  missing  \(fact.kind) \(fact.subject): \(fact.value) (\(fact.polarity))") }
                    for fact in miss.spurious { print("  spurious \(fact.kind) \(fact.subject): \(fact.value) (\(fact.polarity))") }
                }
            }
            if let minPrecision, result.overall.precision < minPrecision { throw ExitCode(1) }
            if let minRecall, result.overall.recall < minRecall { throw ExitCode(1) }
        }
    }
}
