import Foundation
import HearthEvents

/// Why a submission to the public activity feed was refused (`activity.moderated`'s `reason`).
public enum ActivityRefusalReason: String, Sendable, CaseIterable, Codable {
    case unsafe, medical, pii, spam, duplicate
}

/// The content half of moderating a submission: contact details (the PII redactor), then the
/// safety policy's `activities` domain (and the rules every domain has), then the signs of spam no
/// pattern list holds (shouting, runs of one character, letters that make no words). The first
/// finding decides; none means the words may be published. Similarity to what the feed has is
/// `ActivityModerationDecision`'s half.
public struct ActivitySubmissionScreen: Sendable {
    public struct Finding: Sendable, Equatable {
        /// Why it is refused; nil: not refused, but held for a person (a risky topic).
        public var reason: ActivityRefusalReason?
        /// The policy rule (or `pii.redactor`, `spam.shouting`, …) that found it.
        public var ruleId: String
        /// What the author reads: why, and what would be welcome instead. Quotes nothing of theirs.
        public var note: String

        public init(reason: ActivityRefusalReason?, ruleId: String, note: String) {
            self.reason = reason
            self.ruleId = ruleId
            self.note = note
        }
    }

    public static let policyDomain = "activities"
    static let contactDetailsNote =
        "The feed is public, so it can't carry contact details (an e-mail address, a phone number or a street address). Please send the activity without them."
    static let spamNote = "That reads as advertising or noise rather than an activity, so it can't go into the public feed."

    public let policy: SafetyPolicy

    public init(policy: SafetyPolicy) {
        self.policy = policy
    }

    public func screen(_ content: ActivityContent) -> Finding? {
        let text = "\(content.title)\n\(content.description)"
        if policy.redactor.redact(text) != text {
            return Finding(reason: .pii, ruleId: "pii.redactor", note: Self.contactDetailsNote)
        }
        if let violation = policy.violation(in: text, domain: Self.policyDomain, childAges: [], at: .goal) {
            return Finding(reason: Self.reason(forRefusal: violation.refusalKey), ruleId: violation.ruleId, note: violation.refusalText)
        }
        if let rule = Self.noiseRule(in: text) {
            return Finding(reason: .spam, ruleId: rule, note: Self.spamNote)
        }
        if let topic = Self.cautionTopic(in: text) {
            return Finding(reason: nil, ruleId: "caution.\(topic)", note: Self.cautionNote)
        }
        return nil
    }

    static let cautionNote = "It touches on something that needs care with children, so a person will check it before it goes into the feed."

    /// Topics no rule refuses outright but no pipeline should publish unseen: a person decides.
    /// The rules catch the unsafe ways to do these; this catches the ways nobody wrote a rule for.
    static let cautionTopics: [(topic: String, pattern: NSRegularExpression)] = [
        ("sharp_tools", #"\b(?:knife|knives|blades?|axes?|hatchets?|saws?|scissors|razors?|pocket ?knife)\b"#),
        ("fire", #"\b(?:(?<!-)fires?|flames?|candles?|matches|lighters?|bonfires?|fireworks?|sparklers?|barbecues?|bbq)\b"#),
        ("water", #"\b(?:ponds?|rivers?|lakes?|canals?|reservoirs?|quarry|swimming|ice|frozen)\b"#),
        ("heights", #"\b(?:cliffs?|roofs?|ladders?|balcon(?:y|ies)|trampolines?|tightrope)\b"#),
        ("dares", #"\b(?:dares?|challenges?|boxing|wrestl\w*|fights?|fighting)\b"#),
        ("substances", #"\b(?:medicines?|pills?|tablets?|vitamins?|supplements?|remed(?:y|ies)|oils?|bleach|chemicals?|batter(?:y|ies)|magnets?|alcohol|wine|beer|cocktails?|vapes?|cigarettes?)\b"#),
    ].map { ($0.0, try! NSRegularExpression(pattern: $0.1, options: [.caseInsensitive])) } // swiftlint:disable:this force_try — literal patterns

    public static func cautionTopic(in text: String) -> String? {
        let range = NSRange(text.startIndex..., in: text)
        return cautionTopics.first { $0.pattern.firstMatch(in: text, range: range) != nil }?.topic
    }

    /// The refusal keys of the policy as reasons: health claims and medical advice are `medical`,
    /// advertising `spam`, naming someone `pii`; everything else a rule refuses (danger, crisis,
    /// harsh discipline) is unsafe to publish for children.
    static func reason(forRefusal key: String) -> ActivityRefusalReason {
        switch key {
        case "activity_medical", "medical": .medical
        case "activity_spam": .spam
        case "activity_identifying": .pii
        default: .unsafe
        }
    }

    /// Spam a pattern list cannot name: mostly capitals, five of one character in a row, or
    /// several long "words" without a vowel.
    static func noiseRule(in text: String) -> String? {
        let letters = text.unicodeScalars.filter { CharacterSet.letters.contains($0) }
        let capitals = letters.filter { CharacterSet.uppercaseLetters.contains($0) }
        if letters.count >= 20, Double(capitals.count) / Double(letters.count) > 0.6 { return "spam.shouting" }
        var run = 0
        var previous: Character?
        for character in text.lowercased() where !character.isWhitespace {
            run = character == previous ? run + 1 : 1
            previous = character
            if run >= 5 { return "spam.repetition" }
        }
        let words = text.lowercased().split { !$0.isLetter }.map(String.init)
        if words.filter(isUnpronounceable).count >= 3 { return "spam.gibberish" }
        return nil
    }

    /// A "word" English does not spell: four consonants in a row that no English word runs
    /// together (`asdfgh`, `zxqv`; not `birthday` or `strengths`, whose runs are made of common
    /// clusters), no vowel at all in five letters or more, or a `q` without its `u`.
    static func isUnpronounceable(_ word: String) -> Bool {
        guard word.count >= 4, word.allSatisfy(\.isASCII) else { return false }
        let vowels: Set<Character> = ["a", "e", "i", "o", "u", "y"]
        if word.count >= 5, !word.contains(where: vowels.contains) { return true }
        if let q = word.firstIndex(of: "q"), word[word.index(after: q)...].first != "u" { return true }
        // Letters that make up English's long consonant runs (`ngths`, `tchphr`, `rthd`).
        let clusterLetters: Set<Character> = ["b", "c", "d", "g", "h", "l", "n", "p", "r", "s", "t", "w"]
        var run: [Character] = []
        for character in word + "a" {
            if vowels.contains(character) {
                if run.count >= 4, !run.allSatisfy(clusterLetters.contains) { return true }
                run = []
            } else {
                run.append(character)
            }
        }
        return false
    }
}

/// The nearest activity to a submission by embedding similarity: one in the feed (`inFeed`) or
/// an earlier submission still waiting or held.
public struct ActivityNeighbour: Sendable, Equatable {
    public var id: String
    public var title: String?
    public var similarity: Double
    public var inFeed: Bool

    public init(id: String, title: String?, similarity: Double, inFeed: Bool) {
        self.id = id
        self.title = title
        self.similarity = similarity
        self.inFeed = inFeed
    }
}

/// The pipeline's decision on one submission: refused by the screen, a duplicate of its nearest
/// neighbour (cosine ≥ `duplicateAt`), held for a person when the screen found a topic that needs
/// care or it is close to its neighbour (≥ `holdAt`), else approved. The thresholds are measured on the labelled set (`make eval`, `moderation.json`).
public struct ActivityModerationDecision: Sendable, Equatable {
    public struct Thresholds: Sendable, Equatable {
        public var duplicateAt: Double
        public var holdAt: Double

        /// Measured with MiniLM on `moderation.json` (see the README's evaluation section).
        public static let measured = Thresholds(duplicateAt: 0.85, holdAt: 0.60)

        public init(duplicateAt: Double, holdAt: Double) {
            self.duplicateAt = duplicateAt
            self.holdAt = min(holdAt, duplicateAt)
        }
    }

    public var decision: String
    public var reason: ActivityRefusalReason?
    public var note: String
    public var ruleId: String?
    public var nearest: ActivityNeighbour?

    public static func decide(finding: ActivitySubmissionScreen.Finding?, nearest: ActivityNeighbour?, thresholds: Thresholds) -> ActivityModerationDecision {
        if let finding, let reason = finding.reason {
            return ActivityModerationDecision(decision: "rejected", reason: reason, note: finding.note, ruleId: finding.ruleId, nearest: nearest)
        }
        if let nearest, nearest.similarity >= thresholds.duplicateAt {
            return ActivityModerationDecision(
                decision: "rejected", reason: .duplicate, note: "The feed already has this activity: \(describe(nearest)). Thank you all the same!",
                ruleId: "duplicate", nearest: nearest)
        }
        if let finding {
            return ActivityModerationDecision(decision: "held", reason: nil, note: finding.note, ruleId: finding.ruleId, nearest: nearest)
        }
        if let nearest, nearest.similarity >= thresholds.holdAt {
            return ActivityModerationDecision(
                decision: "held", reason: nil, note: "It is close to \(describe(nearest)); a person will look at it soon.", ruleId: "near_duplicate",
                nearest: nearest)
        }
        return ActivityModerationDecision(decision: "approved", reason: nil, note: "Approved: it is in the feed now.", ruleId: nil, nearest: nearest)
    }

    /// Names a feed activity by its title; an earlier submission not yet published stays unnamed
    /// (its words are its author's).
    static func describe(_ neighbour: ActivityNeighbour) -> String {
        if neighbour.inFeed, let title = neighbour.title { return "“\(title)”" }
        return "an activity someone submitted earlier"
    }
}
