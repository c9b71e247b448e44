import AsyncHTTPClient
import Foundation
@testable import HearthAssist
import HearthConfiguration
import Testing

@Suite struct ServerSentEventParserTests {
    @Test func eventsSurviveAnyChunking() {
        let body = "event: message_start\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n"
        let bytes = Array(body.utf8)
        let expected = [
            ServerSentEvent(event: "message_start", data: "{\"a\":1}"),
            ServerSentEvent(event: nil, data: "line one\nline two"),
            ServerSentEvent(event: nil, data: "[DONE]"),
        ]
        for size in [1, 2, 3, 7, bytes.count] {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            var index = 0
            while index < bytes.count {
                events += parser.feed(bytes[index..<min(index + size, bytes.count)])
                index += size
            }
            events += parser.finish()
            #expect(events == expected, "chunk size \(size)")
        }
    }

    @Test func crlfAndMultiByteCharactersSplitAcrossChunks() {
        var parser = ServerSentEventParser()
        let bytes = Array("data: café ☕\r\n\r\ndata:no-space\r\n\r\n".utf8)
        var events = parser.feed(bytes[0..<9])  // splits inside "é"
        events += parser.feed(bytes[9...])
        #expect(events == [ServerSentEvent(event: nil, data: "café ☕"), ServerSentEvent(event: nil, data: "no-space")])
    }

    @Test func aLastEventWithoutItsBlankLineStillCounts() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: tail".utf8)).isEmpty)
        #expect(parser.finish() == [ServerSentEvent(event: nil, data: "tail")])
    }
}

@Suite struct ProviderDecoderTests {
    @Test func openAIChunksUsageAndDone() throws {
        var decoder = OpenAIChatProvider.Decoder()
        #expect(try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#)) == "")
        #expect(try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#)) == "Hel")
        #expect(try decoder.consume(.init(data: #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#)) == nil)
        #expect(try decoder.consume(.init(data: #"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#)) == nil)
        #expect(!decoder.isFinished)
        #expect(try decoder.consume(.init(data: "[DONE]")) == nil)
        #expect(decoder.isFinished)
        #expect(decoder.reportedInputTokens == 12)
        #expect(decoder.reportedOutputTokens == 3)
    }

    @Test func openAIErrorEventsFail() {
        var decoder = OpenAIChatProvider.Decoder()
        #expect(throws: ModelProviderError.self) { try decoder.consume(.init(data: #"{"error":{"message":"overloaded"}}"#)) }
        #expect(throws: ModelProviderError.self) { try decoder.consume(.init(data: "not json")) }
    }

    @Test func anthropicEvents() throws {
        var decoder = AnthropicMessagesProvider.Decoder()
        _ = try decoder.consume(.init(event: "message_start", data: #"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":25,"output_tokens":1}}}"#))
        _ = try decoder.consume(.init(event: "content_block_start", data: #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#))
        _ = try decoder.consume(.init(event: "ping", data: #"{"type":"ping"}"#))
        #expect(try decoder.consume(.init(event: "content_block_delta", data: #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#)) == "Hi")
        _ = try decoder.consume(.init(event: "message_delta", data: #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}"#))
        #expect(!decoder.isFinished)
        _ = try decoder.consume(.init(event: "message_stop", data: #"{"type":"message_stop"}"#))
        #expect(decoder.isFinished)
        #expect(decoder.reportedInputTokens == 25)
        #expect(decoder.reportedOutputTokens == 15)
    }

    @Test func anthropicErrorEventFails() {
        var decoder = AnthropicMessagesProvider.Decoder()
        #expect(throws: ModelProviderError.self) {
            try decoder.consume(.init(event: "error", data: #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#))
        }
    }

    @Test func requestBodies() throws {
        let request = ModelRequest(
            phase: .planning, system: "be brief", prompt: "dinners", maxOutputTokens: 32, temperature: 0.1, runId: "r",
            offlineAnswer: "")
        let openAI = try JSONSerialization.jsonObject(with: JSONEncoder().encode(OpenAIChatProvider.Body(request: request, model: "gpt-4o-mini"))) as? [String: Any]
        #expect(openAI?["stream"] as? Bool == true)
        #expect((openAI?["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
        #expect(openAI?["max_completion_tokens"] as? Int == 32)
        #expect((openAI?["messages"] as? [[String: String]]) == [["role": "system", "content": "be brief"], ["role": "user", "content": "dinners"]])
        let anthropic = try JSONSerialization.jsonObject(
            with: JSONEncoder().encode(AnthropicMessagesProvider.Body(request: request, model: "claude-3-5-haiku-latest"))) as? [String: Any]
        #expect(anthropic?["system"] as? String == "be brief")
        #expect(anthropic?["max_tokens"] as? Int == 32)
        #expect(anthropic?["stream"] as? Bool == true)
        #expect((anthropic?["messages"] as? [[String: String]]) == [["role": "user", "content": "dinners"]])
    }
}

@Suite struct RetryTests {
    @Test func retryAfterForms() {
        #expect(RetryAfter.parse(retryAfter: "2", retryAfterMs: nil) == .seconds(2))
        #expect(RetryAfter.parse(retryAfter: "0.5", retryAfterMs: nil) == .milliseconds(500))
        #expect(RetryAfter.parse(retryAfter: "2", retryAfterMs: "150") == .milliseconds(150))
        #expect(RetryAfter.parse(retryAfter: nil, retryAfterMs: nil) == nil)
        #expect(RetryAfter.parse(retryAfter: "soon", retryAfterMs: nil) == nil)
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(RetryAfter.parse(retryAfter: "Tue, 14 Nov 2023 22:13:23 GMT", retryAfterMs: nil, now: now) == .seconds(3))
        #expect(RetryAfter.parse(retryAfter: "Tue, 14 Nov 2023 22:13:00 GMT", retryAfterMs: nil, now: now) == .zero)
    }

    @Test func backOffIsBoundedExponentialAndHonoursRetryAfter() throws {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1), maxRetryAfter: .seconds(5))
        let server = ModelProviderError(provider: "p", kind: .server, message: "")
        let first = try #require(policy.delay(after: 1, error: server))
        let second = try #require(policy.delay(after: 2, error: server))
        #expect(first >= .milliseconds(50) && first <= .milliseconds(100))
        #expect(second >= .milliseconds(100) && second <= .milliseconds(200))
        #expect(policy.delay(after: 3, error: server) == nil)
        var throttled = ModelProviderError(provider: "p", kind: .rateLimited, message: "", retryAfter: .seconds(2))
        #expect(policy.delay(after: 1, error: throttled) == .seconds(2))
        throttled.retryAfter = .seconds(30)
        #expect(policy.delay(after: 1, error: throttled) == nil)
        #expect(policy.delay(after: 1, error: ModelProviderError(provider: "p", kind: .rejected, message: "")) == nil)
        let midStream = ModelProviderError(provider: "p", kind: .transport, message: "", partial: ProviderResult(text: "x", inputTokens: 1, outputTokens: 1))
        #expect(policy.delay(after: 1, error: midStream) == nil)
    }
}

@Suite struct LocalModelProviderTests {
    @Test func streamsTheOfflineAnswerInWordChunks() async throws {
        let sink = TokenSink()
        let request = ModelRequest(
            phase: .synthesis, system: "sys", prompt: "twelve chars", maxOutputTokens: 10, temperature: 0, runId: "r",
            offlineAnswer: "  Monday: lentil soup.\nTuesday:  tacos ")
        let result = try await LocalModelProvider().complete(request, onToken: sink.onToken)
        #expect(sink.text == request.offlineAnswer)
        #expect(result.text == request.offlineAnswer)
        #expect(LocalModelProvider.wordChunks(request.offlineAnswer) == ["  Monday: ", "lentil ", "soup.\n", "Tuesday:  ", "tacos "])
        #expect(result.inputTokens == 1 + 3)
        #expect(result.outputTokens == 10)  // 38 characters / 4, rounded up
        let again = try await LocalModelProvider().complete(request, onToken: { _ in })
        #expect(again == result)
    }
}

@Suite struct ModelRouterConfigurationTests {
    @Test func chainsParse() throws {
        let entries = try ModelChainEntry.parseList("openai:gpt-4o-mini, anthropic:claude-3-5-haiku-latest,,local", variable: "V")
        #expect(entries.map(\.description) == ["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku-latest", "local:offline-v1"])
        #expect(throws: ModelConfigurationError.unknownProvider(variable: "V", entry: "gemini:pro")) {
            try ModelChainEntry.parseList("gemini:pro", variable: "V")
        }
        #expect(throws: ModelConfigurationError.missingModel(variable: "V", entry: "openai")) { try ModelChainEntry.parseList("openai", variable: "V") }
    }

    @Test func defaultsToTheOfflineProvider() throws {
        let router = try ModelRouter.fromEnvironment([:], ledger: InMemoryBudgetLedger(), httpClient: .shared, logger: AssistFixtures.logger)
        #expect(router.chainDescription == [.planning: ["local:offline-v1"], .synthesis: ["local:offline-v1"], .extraction: ["local:offline-v1"]])
    }

    @Test func readsChainsKeysAndPrices() throws {
        let env: EnvironmentReader = [
            "HEARTH_MODEL_CHAIN_PLANNING": "anthropic:claude-3-5-haiku-latest,local",
            "HEARTH_MODEL_CHAIN_SYNTHESIS": "openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest,local",
            "HEARTH_OPENAI_API_KEY": "sk-test", "HEARTH_ANTHROPIC_API_KEY": "sk-ant-test",
        ]
        let router = try ModelRouter.fromEnvironment(env, ledger: InMemoryBudgetLedger(), httpClient: .shared, logger: AssistFixtures.logger)
        #expect(router.chainDescription[.synthesis] == ["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku-latest", "local:offline-v1"])
        #expect(router.chainDescription[.planning] == ["anthropic:claude-3-5-haiku-latest", "local:offline-v1"])
    }

    @Test func refusesAChainItCannotRunOrPrice() throws {
        #expect(throws: ModelConfigurationError.missingAPIKey(provider: "openai", variable: "HEARTH_OPENAI_API_KEY")) {
            try ModelRouter.fromEnvironment(
                ["HEARTH_MODEL_CHAIN_SYNTHESIS": "openai:gpt-4o-mini"], ledger: InMemoryBudgetLedger(), httpClient: .shared, logger: AssistFixtures.logger)
        }
        #expect(throws: ModelConfigurationError.missingPrice(entry: "openai:gpt-unknown", pricesFile: "model_prices.json")) {
            try ModelRouter.fromEnvironment(
                ["HEARTH_MODEL_CHAIN_SYNTHESIS": "openai:gpt-unknown", "HEARTH_OPENAI_API_KEY": "k"], ledger: InMemoryBudgetLedger(),
                httpClient: .shared, logger: AssistFixtures.logger)
        }
        #expect(throws: ModelPricesError.self) {
            try ModelRouter.fromEnvironment(
                ["HEARTH_MODEL_PRICES_FILE": "/nonexistent.json"], ledger: InMemoryBudgetLedger(), httpClient: .shared, logger: AssistFixtures.logger)
        }
    }

    @Test func pricesFileOverride() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("prices-\(UUID()).json")
        try #"{"models": {"openai:tiny": {"input_cents_per_1k": 0.001, "output_cents_per_1k": 0.002}}}"#.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let prices = try ModelPrices.load(from: url)
        #expect(prices.price(provider: "openai", model: "tiny") == ModelPrice(inputCentsPer1K: 0.001, outputCentsPer1K: 0.002))
        let router = try ModelRouter.fromEnvironment(
            ["HEARTH_MODEL_PRICES_FILE": url.path, "HEARTH_MODEL_CHAIN_PLANNING": "openai:tiny", "HEARTH_OPENAI_API_KEY": "k"],
            ledger: InMemoryBudgetLedger(), httpClient: .shared, logger: AssistFixtures.logger)
        #expect(router.chainDescription[.planning] == ["openai:tiny"])
    }

    @Test func bundledPricesCoverTheDocumentedModels() throws {
        let prices = try ModelPrices.bundled()
        for key in ["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku-latest", "local:offline-v1"] {
            #expect(prices.byModel[key] != nil, "\(key)")
        }
        #expect(abs(ModelPrice(inputCentsPer1K: 0.015, outputCentsPer1K: 0.06).cents(inputTokens: 1000, outputTokens: 500) - 0.045) < 1e-12)
    }
}
