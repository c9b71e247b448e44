/// Token counts before a provider has reported any: about four characters per token. UTF-8
/// bytes stand in for characters, which over-counts non-ASCII text — the safe side for a
/// budget reservation.
public enum TokenEstimator {
    public static func tokens(in text: String) -> Int {
        (text.utf8.count + 3) / 4
    }

    /// The prompt side of a request: the system text and the prompt.
    public static func inputTokens(of request: ModelRequest) -> Int {
        tokens(in: request.system) + tokens(in: request.prompt)
    }
}
