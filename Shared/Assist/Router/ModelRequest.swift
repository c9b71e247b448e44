import HearthEvents

/// One model call as the flow describes it; providers translate it into their wire format.
public struct ModelRequest: Sendable {
    public var phase: ModelPhase
    public var system: String
    public var prompt: String
    public var maxOutputTokens: Int
    public var temperature: Double
    public var runId: String
    public var userId: String?
    /// What the offline `local` provider answers (deterministic text computed by the caller).
    public var offlineAnswer: String
    /// A JSON schema the answer must follow. Providers that can enforce one are asked to (OpenAI's
    /// `response_format`); callers also describe it in `system` and check the answer themselves.
    public var responseSchema: ModelResponseSchema?

    public init(
        phase: ModelPhase, system: String, prompt: String, maxOutputTokens: Int, temperature: Double,
        runId: String, userId: String? = nil, offlineAnswer: String, responseSchema: ModelResponseSchema? = nil
    ) {
        self.responseSchema = responseSchema
        self.phase = phase
        self.system = system
        self.prompt = prompt
        self.maxOutputTokens = maxOutputTokens
        self.temperature = temperature
        self.runId = runId
        self.userId = userId
        self.offlineAnswer = offlineAnswer
    }
}

/// A named JSON schema for a structured answer.
public struct ModelResponseSchema: Sendable, Equatable {
    public var name: String
    public var schema: JSONValue

    public init(name: String, schema: JSONValue) {
        self.name = name
        self.schema = schema
    }
}
