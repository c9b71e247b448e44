import Foundation

/// A compiled regular expression. NSRegularExpression rather than Swift `Regex` because the
/// policy's patterns are data read at run time, and ICU's engine is the faster one for that.
struct TextPattern: Sendable {
    let source: String
    private let regex: NSRegularExpression

    init(_ source: String, caseInsensitive: Bool = true) throws {
        self.source = source
        var options: NSRegularExpression.Options = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        regex = try NSRegularExpression(pattern: source, options: options)
    }

    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// Every match, in order, as ranges of `text`.
    func ranges(in text: String) -> [Range<String.Index>] {
        regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text) }
    }
}
