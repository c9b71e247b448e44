import Foundation

/// Text cut to a length for showing or sending on: an error message quoting what a client sent,
/// a push preview, a conversation's turn carried to the model, a reminder's title.
public enum Excerpt {
    /// At most `limit` characters: the start and "…" when it was longer.
    public static func clipped(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(max(limit - 1, 0))) + "…"
    }

    /// At most `limit` characters, trimmed, cut at a word with "…" when it was longer.
    public static func atWord(_ text: String, to limit: Int) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count > limit else { return trimmed }
        let cut = trimmed.prefix(limit - 1)
        let atWord = cut.lastIndex(where: \.isWhitespace).map { cut[..<$0] } ?? cut
        return atWord.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)) + "…"
    }
}
