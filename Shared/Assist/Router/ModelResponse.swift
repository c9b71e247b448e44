/// The answer of the provider that served a request, with every attempt made on the way.
public struct ModelResponse: Sendable {
    public var text: String
    public var provider: String
    public var model: String
    public var inputTokens: Int
    public var outputTokens: Int
    public var costCents: Double
    public var attempts: [ModelAttempt]

    public init(
        text: String, provider: String, model: String, inputTokens: Int, outputTokens: Int, costCents: Double,
        attempts: [ModelAttempt]
    ) {
        self.text = text
        self.provider = provider
        self.model = model
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.costCents = costCents
        self.attempts = attempts
    }
}
