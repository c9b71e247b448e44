import Foundation
import HearthContent

/// Precision and recall of `ProfileFactExtractor` over the labelled messages in
/// `Shared/Content/eval/extraction.json`. A fact counts as found only when kind, subject, value
/// and polarity all match a labelled fact of the same message.
public struct ExtractionEvaluation: Sendable {
    public struct LabelledFact: Codable, Sendable, Hashable {
        public var kind: String
        public var subject: String
        public var value: String
        public var polarity: String
    }

    public struct LabelledMessage: Codable, Sendable {
        public var text: String
        public var speaker: String
        public var members: [String]
        public var facts: [LabelledFact]
    }

    public struct Score: Sendable, Equatable {
        public var truePositives = 0
        public var falsePositives = 0
        public var falseNegatives = 0

        public var precision: Double {
            truePositives + falsePositives == 0 ? 1 : Double(truePositives) / Double(truePositives + falsePositives)
        }
        public var recall: Double {
            truePositives + falseNegatives == 0 ? 1 : Double(truePositives) / Double(truePositives + falseNegatives)
        }
        public var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
    }

    /// One message whose extraction differs from its labels.
    public struct Miss: Sendable {
        public var text: String
        public var missing: [LabelledFact]
        public var spurious: [LabelledFact]
    }

    public var perKind: [ProfileFactKind: Score] = [:]
    public var overall = Score()
    /// Facts stating a removal, scored on their own: negation is where rules fail most.
    public var removals = Score()
    public var misses: [Miss] = []
    public var messages = 0

    public static func labelledMessages() throws -> [LabelledMessage] {
        try JSONDecoder().decode([LabelledMessage].self, from: HearthContent.data(of: .extractionMessages))
    }

    public static func run(_ extractor: ProfileFactExtractor, on messages: [LabelledMessage]) -> ExtractionEvaluation {
        var evaluation = ExtractionEvaluation()
        evaluation.messages = messages.count
        for message in messages {
            let expected = Set(message.facts)
            let extracted = Set(
                extractor.extract(text: message.text, speaker: message.speaker, members: message.members).map {
                    LabelledFact(kind: $0.kind.rawValue, subject: $0.subject, value: $0.value, polarity: $0.polarity.rawValue)
                })
            for fact in expected.union(extracted) {
                let kind = ProfileFactKind(rawValue: fact.kind) ?? .preference
                var score = evaluation.perKind[kind] ?? Score()
                let hit = expected.contains(fact) && extracted.contains(fact)
                let falsePositive = !expected.contains(fact)
                func count(_ score: inout Score) {
                    if hit { score.truePositives += 1 } else if falsePositive { score.falsePositives += 1 } else { score.falseNegatives += 1 }
                }
                count(&score)
                count(&evaluation.overall)
                if fact.polarity == ProfileFactPolarity.remove.rawValue { count(&evaluation.removals) }
                evaluation.perKind[kind] = score
            }
            if expected != extracted {
                let order: (LabelledFact, LabelledFact) -> Bool = { ($0.kind, $0.subject, $0.value) < ($1.kind, $1.subject, $1.value) }
                evaluation.misses.append(
                    Miss(
                        text: message.text, missing: expected.subtracting(extracted).sorted(by: order),
                        spurious: extracted.subtracting(expected).sorted(by: order)))
            }
        }
        return evaluation
    }
}
