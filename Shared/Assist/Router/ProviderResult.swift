/// What a provider returns: the whole text it streamed, the tool calls it assembled and the usage
/// it reported (or, where a server reports none, an estimate). The router prices it; providers
/// know nothing of money.
public struct ProviderResult: Sendable, Equatable {
    public var text: String
    public var inputTokens: Int
    public var outputTokens: Int
    /// The model's tool calls in the order it wrote them. They are not streamed through `onToken`:
    /// a call is only usable once its arguments are complete.
    public var toolCalls: [ModelToolCall]

    public init(text: String, inputTokens: Int, outputTokens: Int, toolCalls: [ModelToolCall] = []) {
        self.text = text
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.toolCalls = toolCalls
    }
}
