import AsyncHTTPClient
import Foundation
import HearthAssist
import Logging
import Synchronization
import Testing

/// The OpenAI and Anthropic clients against local fake servers speaking their wire formats.
@Suite struct ModelRouterProviderTests {
    static let logger: Logger = {
        var logger = Logger(label: "assist-provider-tests")
        logger.logLevel = .critical
        return logger
    }()

    static let request = ModelRequest(
        phase: .synthesis, system: "You plan family meals.", prompt: "Three dinners, no peanuts.", maxOutputTokens: 120,
        temperature: 0.3, runId: "run-42", userId: "user-7", offlineAnswer: "Offline: lentil soup, tacos, risotto.")

    final class Tokens: Sendable {
        private let received = Mutex<[String]>([])
        var onToken: @Sendable (String) async -> Void { { token in self.received.withLock { $0.append(token) } } }
        var all: [String] { received.withLock { $0 } }
    }

    func openAI(_ baseURL: String, _ client: HTTPClient, key: String = "sk-test-openai", timeouts: ProviderTimeouts = ProviderTimeoutsForTests.timeouts)
        -> OpenAIChatProvider
    {
        OpenAIChatProvider(
            model: "gpt-4o-mini", apiKey: key, baseURL: baseURL, httpClient: client, retry: ProviderTimeoutsForTests.retry,
            timeouts: timeouts, logger: Self.logger)
    }

    func anthropic(_ baseURL: String, _ client: HTTPClient, key: String = "sk-ant-test", timeouts: ProviderTimeouts = ProviderTimeoutsForTests.timeouts)
        -> AnthropicMessagesProvider
    {
        AnthropicMessagesProvider(
            model: "claude-3-5-haiku-latest", apiKey: key, baseURL: baseURL, httpClient: client, retry: ProviderTimeoutsForTests.retry,
            timeouts: timeouts, logger: Self.logger)
    }

    @Test func openAIStreamIsAssembledWithUsage() async throws {
        let server = FakeModelServer(["/v1/chat/completions": [.stream(ModelWire.openAI(["Mon", "day: ", "dal\n", "Tuesday: \"tacos\""], prompt: 31, completion: 12))]])
        let tokens = Tokens()
        let result = try await server.serve { base, client in
            try await openAI(base, client).complete(Self.request, onToken: tokens.onToken)
        }
        #expect(result.text == "Monday: dal\nTuesday: \"tacos\"")
        #expect(tokens.all == ["Mon", "day: ", "dal\n", "Tuesday: \"tacos\""])
        #expect(result.inputTokens == 31)
        #expect(result.outputTokens == 12)
        let sent = try #require(await server.requests.first)
        #expect(sent.headers["authorization"] == "Bearer sk-test-openai")
        #expect(sent.body["model"] as? String == "gpt-4o-mini")
        #expect(sent.body["stream"] as? String == "1")
        #expect((sent.body["stream_options"] as? String)?.contains("include_usage") == true)
    }

    @Test func anthropicStreamIsAssembledWithUsage() async throws {
        let server = FakeModelServer(["/v1/messages": [.stream(ModelWire.anthropic(["Hello", ", ", "family ☕"], input: 27, output: 9))]])
        let tokens = Tokens()
        let result = try await server.serve { base, client in
            try await anthropic(base, client).complete(Self.request, onToken: tokens.onToken)
        }
        #expect(result.text == "Hello, family ☕")
        #expect(tokens.all == ["Hello", ", ", "family ☕"])
        #expect(result.inputTokens == 27)
        #expect(result.outputTokens == 9)
        let sent = try #require(await server.requests.first)
        #expect(sent.headers["x-api-key"] == "sk-ant-test")
        #expect(sent.headers["anthropic-version"] == "2023-06-01")
        #expect(sent.headers["authorization"] == nil)
        #expect(sent.body["system"] as? String == "You plan family meals.")
        #expect(sent.body["max_tokens"] as? String == "120")
    }

    @Test func rateLimitedOnceThenServedAfterRetryAfter() async throws {
        let server = FakeModelServer([
            "/v1/chat/completions": [
                .status(429, headers: ["retry-after": "1"], body: #"{"error":{"message":"Rate limit reached","type":"requests"}}"#),
                .stream(ModelWire.openAI(["ok"], prompt: 5, completion: 1)),
            ],
        ])
        let result = try await server.serve { base, client in
            try await openAI(base, client).complete(Self.request, onToken: { _ in })
        }
        #expect(result.text == "ok")
        let requests = await server.requests
        #expect(requests.count == 2)
        // The back-off alone would have waited ≤ 20 ms; the second request came after Retry-After.
        #expect(requests[1].receivedAt - requests[0].receivedAt >= .seconds(1))
    }

    @Test func anthropicServerErrorsAreRetriedThenTheRouterFallsBackToLocal() async throws {
        let key = "sk-ant-secret-key-123"
        // The server echoes the key in its error body; it must not reach the attempt record.
        let server = FakeModelServer(["/v1/messages": [.status(500, body: #"{"type":"error","error":{"type":"api_error","message":"internal error for \#(key)"}}"#)]])
        let ledger = InMemoryBudgetLedger()
        let tokens = Tokens()
        let response = try await server.serve { base, client in
            let router = ModelRouter(
                chains: [.synthesis: [anthropic(base, client, key: key), LocalModelProvider()]],
                prices: try ModelPrices.bundled(), ledger: ledger, logger: Self.logger)
            return try await router.complete(Self.request, budget: BudgetScope(key: "run-42"), onToken: tokens.onToken)
        }
        #expect(await server.requests(to: "/v1/messages").count == 3)
        #expect(response.provider == "local")
        #expect(response.text == Self.request.offlineAnswer)
        #expect(tokens.all.joined() == Self.request.offlineAnswer)
        #expect(response.attempts.map(\.provider) == ["anthropic", "local"])
        #expect(response.attempts[0].outcome.hasPrefix("error: anthropic server error 500: internal error for"))
        #expect(!response.attempts[0].outcome.contains(key))
        #expect(response.attempts[0].costCents == 0)
        #expect(response.attempts[1].outcome == "ok")
        // The reservation for the failed call was released in full.
        #expect(await ledger.usage(of: "run-42")?.reservedCents == 0)
        #expect(await ledger.usage(of: "run-42")?.spentCents == 0)
    }

    @Test func aRejectedCallIsNotRetriedAndTheNextProviderServes() async throws {
        let server = FakeModelServer([
            "/v1/chat/completions": [.status(401, body: #"{"error":{"message":"Incorrect API key provided: sk-bad","type":"invalid_request_error"}}"#)],
            "/v1/messages": [.stream(ModelWire.anthropic(["Soup ", "night"], input: 40, output: 4))],
        ])
        let ledger = InMemoryBudgetLedger()
        let response = try await server.serve { base, client in
            // Through the environment, as the orchestrator builds it.
            let router = try ModelRouter.fromEnvironment(
                [
                    "HEARTH_MODEL_CHAIN_SYNTHESIS": "openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest,local",
                    "HEARTH_OPENAI_API_KEY": "sk-bad", "HEARTH_OPENAI_BASE_URL": base,
                    "HEARTH_ANTHROPIC_API_KEY": "sk-ant-good", "HEARTH_ANTHROPIC_BASE_URL": base + "/",
                ],
                ledger: ledger, httpClient: client, logger: Self.logger)
            return try await router.complete(Self.request, budget: BudgetScope(key: "run-env"), onToken: { _ in })
        }
        #expect(await server.requests(to: "/v1/chat/completions").count == 1)
        #expect(response.provider == "anthropic")
        #expect(response.text == "Soup night")
        #expect(response.attempts.map(\.outcome.first) == ["e", "o"])
        #expect(response.attempts[0].outcome.hasPrefix("error: openai rejected 401: Incorrect API key provided: [redacted]"))
        // 40 input × 0.08¢/1K + 4 output × 0.4¢/1K
        let expected = 40 * 0.08 / 1000 + 4 * 0.4 / 1000
        #expect(abs(response.costCents - expected) < 1e-12)
        let usage = try #require(await ledger.usage(of: "run-env"))
        #expect(abs(usage.spentCents - expected) < 1e-12)
        #expect(usage.spentTokens == 44)
        #expect(usage.reservedCents == 0)
    }

    @Test func aStreamThatStallsBeforeAnyTextFallsBack() async throws {
        // message_start arrives, then silence longer than the idle timeout (1 s).
        let server = FakeModelServer(["/v1/messages": [.stream(ModelWire.anthropic(["late"], input: 20, output: 2), stallAfter: 1, stall: .seconds(3))]])
        let response = try await server.serve { base, client in
            let router = ModelRouter(
                chains: [.synthesis: [anthropic(base, client, timeouts: ProviderTimeoutsForTests.shortIdle), LocalModelProvider()]],
                prices: try ModelPrices.bundled(), ledger: InMemoryBudgetLedger(), logger: Self.logger)
            return try await router.complete(Self.request, budget: BudgetScope(key: "stall"), onToken: { _ in })
        }
        #expect(response.provider == "local")
        #expect(response.attempts[0].outcome.hasPrefix("error: anthropic timeout"))
        // What the server reported before stalling is still accounted for.
        #expect(response.attempts[0].inputTokens == 20)
        // It gave up after about a second, not after the server's three.
        #expect(response.attempts[0].latencyMs < 2900)
    }

    @Test func aSlowCallerIsNotMistakenForASilentServer() async throws {
        // The caller takes longer with each token than the idle timeout (1 s) allows the server.
        let server = FakeModelServer(["/v1/messages": [.stream(ModelWire.anthropic(["slow ", "reader"], input: 5, output: 2))]])
        let result = try await server.serve { base, client in
            try await anthropic(base, client, timeouts: ProviderTimeoutsForTests.shortIdle)
                .complete(Self.request, onToken: { _ in try? await Task.sleep(for: .milliseconds(1500)) })
        }
        #expect(result.text == "slow reader")
    }

    @Test func aStreamThatBreaksAfterTextIsNotSplicedWithAnotherAnswer() async throws {
        let chunks = ModelWire.openAI(["Monday: ", "soup"], prompt: 9, completion: 3)
        let server = FakeModelServer(["/v1/chat/completions": [.stream(Array(chunks.prefix(2)))]])  // no [DONE]
        let tokens = Tokens()
        await #expect {
            try await server.serve { base, client in
                let router = ModelRouter(
                    chains: [.synthesis: [openAI(base, client), LocalModelProvider()]],
                    prices: try ModelPrices.bundled(), ledger: InMemoryBudgetLedger(), logger: Self.logger)
                return try await router.complete(Self.request, budget: BudgetScope(key: "cut"), onToken: tokens.onToken)
            }
        } throws: { error in
            guard case ModelRouterError.interrupted(_, let attempts, let partial) = error else { return false }
            return partial == "Monday: " && attempts.count == 1 && attempts[0].outcome.contains("without its end marker")
        }
        #expect(tokens.all == ["Monday: "])
    }
}
