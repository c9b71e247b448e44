import Foundation
@testable import HearthAssist
import HearthEvents
import Testing

/// Tools on the wire: what the providers send, and how they assemble the model's calls from the
/// fragments the APIs stream.
@Suite struct ModelToolCallWireTests {
    static let weather = ModelTool(
        name: "get_weather", description: "The forecast for a city.",
        parameters: .object([
            "type": .string("object"),
            "properties": .object(["city": .object(["type": .string("string")])]),
            "required": .array([.string("city")]),
        ]))

    static func request(tools: [ModelTool] = []) -> ModelRequest {
        ModelRequest(
            phase: .planning, system: "be brief", prompt: "weather?", maxOutputTokens: 32, temperature: 0.5, runId: "r",
            offlineAnswer: "", tools: tools)
    }

    /// The body as a JSON tree, to assert on exactly what went out.
    static func json(_ body: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(body))
    }

    /// The body with sorted keys: key order aside, the bytes the server receives.
    static func sortedText(_ body: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(body), as: UTF8.self)
    }

    static func keys(_ value: JSONValue) -> Set<String> {
        if case .object(let fields) = value { return Set(fields.keys) }
        return []
    }

    static func elements(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items) = value { return items }
        return []
    }

    // MARK: Request bodies

    @Test func openAIBodyCarriesToolsAndAutoToolChoice() throws {
        let body = try Self.json(OpenAIChatProvider.Body(request: Self.request(tools: [Self.weather]), model: "gpt-4o-mini"))
        #expect(body["tool_choice"] == .string("auto"))
        let tools = Self.elements(body["tools"])
        #expect(tools.count == 1)
        let tool = try #require(tools.first)
        #expect(Self.keys(tool) == ["type", "function"])
        #expect(tool["type"] == .string("function"))
        let function = try #require(tool["function"])
        #expect(Self.keys(function) == ["name", "description", "parameters"])
        #expect(function["name"] == .string("get_weather"))
        #expect(function["description"] == .string("The forecast for a city."))
        #expect(function["parameters"] == Self.weather.parameters)
    }

    @Test func openAIBodyWithoutToolsHasNeitherKey() throws {
        let body = OpenAIChatProvider.Body(request: Self.request(), model: "gpt-4o-mini")
        let tree = try Self.json(body)
        #expect(tree["tools"] == nil)
        #expect(tree["tool_choice"] == nil)
        #expect(Self.keys(tree) == ["model", "messages", "max_completion_tokens", "temperature", "stream", "stream_options"])
        #expect(try Self.sortedText(body) == #"{"max_completion_tokens":32,"messages":[{"content":"be brief","role":"system"},{"content":"weather?","role":"user"}],"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"temperature":0.5}"#)
    }

    @Test func anthropicBodyCarriesInputSchema() throws {
        let body = try Self.json(AnthropicMessagesProvider.Body(request: Self.request(tools: [Self.weather]), model: "claude-3-5-haiku-latest"))
        let tools = Self.elements(body["tools"])
        #expect(tools.count == 1)
        let tool = try #require(tools.first)
        #expect(Self.keys(tool) == ["name", "description", "input_schema"])
        #expect(tool["name"] == .string("get_weather"))
        #expect(tool["description"] == .string("The forecast for a city."))
        #expect(tool["input_schema"] == Self.weather.parameters)
    }

    @Test func anthropicBodyWithoutToolsHasNoToolsKey() throws {
        let body = AnthropicMessagesProvider.Body(request: Self.request(), model: "claude-3-5-haiku-latest")
        #expect(try Self.json(body)["tools"] == nil)
        #expect(try Self.sortedText(body) == #"{"max_tokens":32,"messages":[{"content":"weather?","role":"user"}],"model":"claude-3-5-haiku-latest","stream":true,"system":"be brief","temperature":0.5}"#)
    }

    // MARK: OpenAI stream

    @Test func openAIDecoderAssemblesInterleavedToolCalls() throws {
        var decoder = OpenAIChatProvider.Decoder()
        let events = [
            #"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"zone\":"}}]},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Par"}}]},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"CET\"}"}}]},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"is\"}"}}]},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            #"{"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":18,"total_tokens":58}}"#,
        ]
        for data in events {
            #expect(try decoder.consume(.init(data: data)) == nil)
        }
        #expect(try decoder.consume(.init(data: "[DONE]")) == nil)
        #expect(decoder.isFinished)
        let expected = [
            ModelToolCall(id: "call_a", name: "get_weather", arguments: #"{"city":"Paris"}"#),
            ModelToolCall(id: "call_b", name: "get_time", arguments: #"{"zone":"CET"}"#),
        ]
        #expect(decoder.toolCalls == expected)
        let result = decoder.result(text: "", request: Self.request(tools: [Self.weather]))
        #expect(result == ProviderResult(text: "", inputTokens: 40, outputTokens: 18, toolCalls: expected))
    }

    @Test func openAICallsComeOutInIndexOrderWithTextKept() throws {
        var decoder = OpenAIChatProvider.Decoder()
        #expect(try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{"content":"Checking."}}]}"#)) == "Checking.")
        _ = try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"second","arguments":"{}"}}]}}]}"#))
        _ = try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"first","arguments":"{}"}}]}}]}"#))
        #expect(decoder.toolCalls.map(\.id) == ["call_a", "call_b"])
    }

    @Test func openAICallWithoutArgumentFragmentsHasAnEmptyObject() throws {
        var decoder = OpenAIChatProvider.Decoder()
        _ = try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_n","type":"function","function":{"name":"list_timers"}}]}}]}"#))
        _ = try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#))
        _ = try decoder.consume(.init(data: "[DONE]"))
        #expect(decoder.toolCalls == [ModelToolCall(id: "call_n", name: "list_timers", arguments: "{}")])
    }

    @Test func withoutReportedUsageTheEstimateCountsToolCalls() throws {
        var decoder = OpenAIChatProvider.Decoder()
        // 12 + 16 characters: 3 + 4 tokens.
        _ = try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"get_weather1","arguments":"{\"city\":\"Paris\"}"}}]}}]}"#))
        _ = try decoder.consume(.init(data: "[DONE]"))
        let result = decoder.result(text: "Sure.", request: Self.request())
        #expect(result.outputTokens == 2 + 3 + 4)
        #expect(result.toolCalls.count == 1)
    }

    // MARK: Anthropic stream

    @Test func anthropicDecoderAssemblesToolUseAndKeepsTextAsText() throws {
        var decoder = AnthropicMessagesProvider.Decoder()
        func consume(_ event: String, _ data: String) throws -> String? {
            try decoder.consume(.init(event: event, data: data))
        }
        _ = try consume("message_start", #"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":30,"output_tokens":1}}}"#)
        _ = try consume("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#)
        #expect(try consume("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me check."}}"#) == "Let me check.")
        _ = try consume("content_block_stop", #"{"type":"content_block_stop","index":0}"#)
        #expect(try consume("content_block_start", #"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#) == nil)
        #expect(try consume("content_block_delta", #"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#) == nil)
        #expect(try consume("content_block_delta", #"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": "}}"#) == nil)
        #expect(try consume("content_block_delta", #"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}"#) == nil)
        _ = try consume("content_block_stop", #"{"type":"content_block_stop","index":1}"#)
        _ = try consume("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}"#)
        _ = try consume("message_stop", #"{"type":"message_stop"}"#)
        #expect(decoder.isFinished)
        let expected = [ModelToolCall(id: "toolu_1", name: "get_weather", arguments: #"{"city": "Paris"}"#)]
        #expect(decoder.toolCalls == expected)
        let result = decoder.result(text: "Let me check.", request: Self.request(tools: [Self.weather]))
        #expect(result == ProviderResult(text: "Let me check.", inputTokens: 30, outputTokens: 42, toolCalls: expected))
    }

    @Test func anthropicToolUseWithoutInputDeltasHasAnEmptyObject() throws {
        var decoder = AnthropicMessagesProvider.Decoder()
        _ = try decoder.consume(.init(
            event: "content_block_start",
            data: #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_2","name":"list_timers","input":{}}}"#))
        _ = try decoder.consume(.init(event: "content_block_stop", data: #"{"type":"content_block_stop","index":0}"#))
        // A slice for a block that never started has no call to join.
        _ = try decoder.consume(.init(
            event: "content_block_delta",
            data: #"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#))
        #expect(decoder.toolCalls == [ModelToolCall(id: "toolu_2", name: "list_timers", arguments: "{}")])
    }

    // MARK: Router and offline provider

    @Test func theRouterHandsOnTheProvidersToolCalls() async throws {
        let call = ModelToolCall(id: "call_1", name: "get_weather", arguments: "{\"city\":\"Par\u{0}is\"}")
        let router = ModelRouter(
            chains: [.planning: [ToolCallingProvider(calls: [call])]], prices: AssistFixtures.prices, ledger: InMemoryBudgetLedger(),
            logger: AssistFixtures.logger)
        let response = try await router.complete(Self.request(tools: [Self.weather]), budget: BudgetScope(key: "tools"), onToken: { _ in })
        #expect(response.toolCalls == [ModelToolCall(id: "call_1", name: "get_weather", arguments: #"{"city":"Paris"}"#)])
        #expect(response.text == "")
    }

    @Test func theOfflineProviderNeverCallsTools() async throws {
        let result = try await LocalModelProvider().complete(Self.request(tools: [Self.weather]), onToken: { _ in })
        #expect(result.toolCalls.isEmpty)
    }
}

/// A provider that answers with tool calls only, as a model does when it decides to call.
private struct ToolCallingProvider: ModelProvider {
    let name = "a"
    let model = "m"
    let calls: [ModelToolCall]

    func complete(_ request: ModelRequest, onToken: @escaping @Sendable (String) async -> Void) async throws -> ProviderResult {
        ProviderResult(text: "", inputTokens: 10, outputTokens: 5, toolCalls: calls)
    }
}
