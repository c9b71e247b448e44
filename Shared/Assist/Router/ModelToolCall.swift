/// A tool the model asked to call, assembled from the streamed fragments of the provider's wire
/// format (OpenAI `tool_calls`, Anthropic `tool_use` blocks).
///
/// `arguments` stays the raw JSON text the model wrote rather than a parsed value: models do
/// write invalid JSON, and the caller that knows the tool's schema is the one to decide what a bad
/// argument means (reject, repair, ask again). A call streamed without any argument fragments
/// carries `{}`, so the text is always a JSON object when the model behaved.
public struct ModelToolCall: Sendable, Equatable {
    /// The provider's id for the call (`call_…`, `toolu_…`); a tool result sent back refers to it.
    public var id: String
    /// The name of one of the request's `ModelTool`s.
    public var name: String
    /// The arguments as JSON text, exactly as the model wrote them.
    public var arguments: String

    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}
