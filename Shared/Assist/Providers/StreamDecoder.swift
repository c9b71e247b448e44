/// A provider's reading of its own event stream: text deltas, usage, the end marker and error
/// events. The shared transport does the HTTP, retries and timeouts around it.
protocol StreamDecoder: Sendable {
    /// The text to pass on from this event, if any. Throws `ModelProviderError` for an error
    /// event or a payload that is not the provider's format.
    mutating func consume(_ event: ServerSentEvent) throws -> String?
    /// The end marker arrived (`[DONE]`, `message_stop`): nothing more is expected.
    var isFinished: Bool { get }
    /// Usage as reported so far; `nil` where the server has not said.
    var reportedInputTokens: Int? { get }
    var reportedOutputTokens: Int? { get }
}

extension StreamDecoder {
    /// The text with the reported usage, or the 4-characters-per-token estimate where the server
    /// reported none (some OpenAI-compatible servers ignore `include_usage`).
    func result(text: String, request: ModelRequest) -> ProviderResult {
        ProviderResult(
            text: text,
            inputTokens: reportedInputTokens ?? TokenEstimator.inputTokens(of: request),
            outputTokens: reportedOutputTokens ?? TokenEstimator.tokens(in: text))
    }
}
