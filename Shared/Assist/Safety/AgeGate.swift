import Foundation

/// Keywords refused while any child in the family is within an age range (whole years, both
/// ends included): honey under one, whole nuts under four.
struct AgeGate: Sendable {
    var id: String
    var ages: ClosedRange<Int>
    var keywords: [String]
    var refusal: String
    var checkpoints: Set<SafetyCheckpoint>
    /// One pattern for all keywords: whole words only (`honeydew` is not `honey`), any case,
    /// any run of spaces or hyphens between the words of a phrase, a plain plural allowed
    /// (`grapes`, `peaches`, `candies`).
    let matcher: TextPattern

    init(id: String, ages: ClosedRange<Int>, keywords: [String], refusal: String, checkpoints: Set<SafetyCheckpoint>) throws {
        self.id = id
        self.ages = ages
        self.keywords = keywords
        self.refusal = refusal
        self.checkpoints = checkpoints
        let alternatives = keywords.map { keyword in
            var words = keyword.split(whereSeparator: { $0 == " " || $0 == "-" }).map { NSRegularExpression.escapedPattern(for: String($0)) }
            // candy → candies: a final consonant + y may turn into "ie" before the plural s.
            if let last = words.last, last.count > 1, last.hasSuffix("y"), !"aeiou".contains(last.dropLast().last!) {
                words[words.count - 1] = String(last.dropLast()) + "(?:y|ie)"
            }
            return words.joined(separator: #"[\s\-]+"#)
        }
        matcher = try TextPattern(#"(?<![\p{L}\p{N}])(?:"# + alternatives.joined(separator: "|") + #")(?:e?s)?(?![\p{L}\p{N}])"#)
    }

    func refuses(_ text: String, childAges: [Int], at checkpoint: SafetyCheckpoint) -> Bool {
        checkpoints.contains(checkpoint) && childAges.contains(where: ages.contains) && matcher.matches(text)
    }
}
