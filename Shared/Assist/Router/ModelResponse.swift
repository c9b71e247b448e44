/// The answer of the provider that served a request, with every attempt made on the way.
public struct ModelResponse: Sendable {
    public var text: String
    public var provider: String
    public var model: String
    public var inputTokens: Int
    public var outputTokens: Int
    public var costCents: Double
    public var attempts: [ModelAttempt]
    /// The tools the model asked to call, in the order it wrote them; empty when the request had
    /// no tools or the model answered in text only.
    public var toolCalls: [ModelToolCall]

    public init(
        text: String, provider: String, model: String, inputTokens: Int, outputTokens: Int, costCents: Double,
        attempts: [ModelAttempt], toolCalls: [ModelToolCall] = []
    ) {
        self.text = text
        self.provider = provider
        self.model = model
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.costCents = costCents
        self.attempts = attempts
        self.toolCalls = toolCalls
    }
}
