/// A sequence of words looked for inside a longer sequence of words, tolerant of plurals.
struct WordPhrase: Sendable, Hashable {
    let words: [String]

    init(_ text: String) {
        words = WordMatching.words(in: text)
    }

    var isEmpty: Bool { words.isEmpty }

    /// Every place the phrase occurs in `text`, as ranges of word positions.
    func occurrences(in text: [String]) -> [Range<Int>] {
        guard !words.isEmpty, text.count >= words.count else { return [] }
        var found: [Range<Int>] = []
        for start in 0...(text.count - words.count) {
            var matches = true
            for offset in 0..<words.count where !WordMatching.samePluralInsensitive(text[start + offset], words[offset]) {
                matches = false
                break
            }
            if matches { found.append(start..<(start + words.count)) }
        }
        return found
    }

    /// Whether the phrase occurs in `text` using only words not covered by `masked`.
    func occurs(in text: [String], avoiding masked: [Bool]) -> Bool {
        occurrences(in: text).contains { range in range.allSatisfy { !masked[$0] } }
    }
}
