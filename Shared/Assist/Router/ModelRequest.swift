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
    /// Tools the model may call instead of (or besides) answering in text; its calls come back in
    /// `ModelResponse.toolCalls`. Empty sends no tools at all, so the request stays what it was.
    public var tools: [ModelTool]

    public init(
        phase: ModelPhase, system: String, prompt: String, maxOutputTokens: Int, temperature: Double,
        runId: String, userId: String? = nil, offlineAnswer: String, responseSchema: ModelResponseSchema? = nil,
        tools: [ModelTool] = []
    ) {
        self.responseSchema = responseSchema
        self.tools = tools
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

/// A function the model may call: providers send it as an OpenAI `function` tool or an Anthropic
/// tool, both of which describe the arguments with a JSON schema.
public struct ModelTool: Sendable, Equatable {
    public var name: String
    /// What the tool does and when to use it; the model reads this to decide whether to call it.
    public var description: String
    /// A JSON schema object for the arguments (`{"type": "object", "properties": …}`).
    public var parameters: JSONValue

    public init(name: String, description: String, parameters: JSONValue) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }
}
