/// What a provider returns: the whole text it streamed and the usage it reported (or, where a
/// server reports none, an estimate). The router prices it; providers know nothing of money.
public struct ProviderResult: Sendable, Equatable {
    public var text: String
    public var inputTokens: Int
    public var outputTokens: Int

    public init(text: String, inputTokens: Int, outputTokens: Int) {
        self.text = text
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
    }
}
