/// A provider's reading of its own event stream: text deltas, tool call fragments, usage, the end
/// marker and error events. The shared transport does the HTTP, retries and timeouts around it.
protocol StreamDecoder: Sendable {
    /// The text to pass on from this event, if any. Throws `ModelProviderError` for an error
    /// event or a payload that is not the provider's format.
    mutating func consume(_ event: ServerSentEvent) throws -> String?
    /// The end marker arrived (`[DONE]`, `message_stop`): nothing more is expected.
    var isFinished: Bool { get }
    /// Usage as reported so far; `nil` where the server has not said.
    var reportedInputTokens: Int? { get }
    var reportedOutputTokens: Int? { get }
    /// The tool calls assembled from the fragments seen so far, in the order the model wrote
    /// them. A requirement without a default: a decoder that forgot it would drop calls silently.
    var toolCalls: [ModelToolCall] { get }
}

extension StreamDecoder {
    /// The text and tool calls with the reported usage, or the 4-characters-per-token estimate
    /// where the server reported none (some OpenAI-compatible servers ignore `include_usage`).
    /// The estimate counts the tool calls' names and arguments too: the model wrote them, and an
    /// answer made only of tool calls would otherwise cost nothing.
    func result(text: String, request: ModelRequest) -> ProviderResult {
        let toolCalls = self.toolCalls
        return ProviderResult(
            text: text,
            inputTokens: reportedInputTokens ?? TokenEstimator.inputTokens(of: request),
            outputTokens: reportedOutputTokens
                ?? toolCalls.reduce(TokenEstimator.tokens(in: text)) { $0 + TokenEstimator.tokens(in: $1.name) + TokenEstimator.tokens(in: $1.arguments) },
            toolCalls: toolCalls)
    }
}

/// Tool calls arriving in pieces, each under the index its wire format gives it (OpenAI's
/// `tool_calls[].index`, Anthropic's content block `index`): the first piece names the call, the
/// rest carry slices of its arguments, and pieces of different calls may interleave.
struct ToolCallAssembly: Sendable, Equatable {
    private var byIndex: [Int: ModelToolCall] = [:]

    /// Whether a call has begun at `index`.
    func contains(_ index: Int) -> Bool { byIndex[index] != nil }

    /// The highest index seen, for wire formats whose pieces may leave the index out.
    var lastIndex: Int? { byIndex.keys.max() }

    /// The id of the call at `index`, if it has one yet.
    func id(at index: Int) -> String? { byIndex[index]?.id }

    /// Starts the call at `index`, or completes its id and name. Servers that repeat the id and
    /// name on every piece do no harm: a value that arrives again replaces, never appends.
    mutating func begin(at index: Int, id: String?, name: String?) {
        var call = byIndex[index] ?? ModelToolCall(id: "", name: "", arguments: "")
        if let id, !id.isEmpty { call.id = id }
        if let name, !name.isEmpty { call.name = name }
        byIndex[index] = call
    }

    /// Appends a slice of the arguments' JSON text to the call at `index` (starting it if the
    /// server skipped the naming piece).
    mutating func append(_ arguments: String, at index: Int) {
        guard !arguments.isEmpty else { return }
        byIndex[index, default: ModelToolCall(id: "", name: "", arguments: "")].arguments += arguments
    }

    /// The calls in index order. A call that got no argument text takes `{}`: a tool without
    /// parameters is streamed that way, and the caller should always get a JSON object.
    var calls: [ModelToolCall] {
        byIndex.sorted { $0.key < $1.key }.map { entry in
            var call = entry.value
            if call.arguments.isEmpty { call.arguments = "{}" }
            return call
        }
    }
}
