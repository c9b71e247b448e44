import HearthAssist
import Logging
import Synchronization

/// A provider that follows a script, for router tests: answer, fail, or stream and then fail.
struct ScriptedProvider: ModelProvider {
    enum Script: Sendable {
        case answer(String, input: Int, output: Int)
        case fail(ModelProviderError.Kind)
        case streamThenFail(String)
        case waitForCancellation
    }

    let name: String
    let model: String
    let script: Script
    let calls: CallLog

    init(_ name: String, _ model: String, _ script: Script, calls: CallLog) {
        self.name = name
        self.model = model
        self.script = script
        self.calls = calls
    }

    func complete(_ request: ModelRequest, onToken: @escaping @Sendable (String) async -> Void) async throws -> ProviderResult {
        calls.append("\(name):\(model)")
        switch script {
        case .answer(let text, let input, let output):
            await onToken(text)
            return ProviderResult(text: text, inputTokens: input, outputTokens: output)
        case .fail(let kind):
            throw ModelProviderError(provider: name, kind: kind, status: 500, message: "scripted failure")
        case .streamThenFail(let text):
            await onToken(text)
            throw ModelProviderError(
                provider: name, kind: .transport, message: "dropped",
                partial: ProviderResult(text: text, inputTokens: 10, outputTokens: 2))
        case .waitForCancellation:
            try await Task.sleep(for: .seconds(60))
            throw CancellationError()
        }
    }
}

/// Which providers were called, in order; shared with the providers' concurrent calls.
final class CallLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// Collects streamed tokens.
final class TokenSink: Sendable {
    private let tokens = Mutex<[String]>([])
    var onToken: @Sendable (String) async -> Void { { token in self.tokens.withLock { $0.append(token) } } }
    var text: String { tokens.withLock { $0.joined() } }
}

/// A ledger that is down.
struct UnavailableLedger: BudgetLedger {
    struct Down: Error {}
    func reserve(_ scope: BudgetScope, cents: Double, tokens: Int) async throws -> BudgetReservation? { throw Down() }
    func settle(_ reservation: BudgetReservation, cents: Double, tokens: Int) async throws { throw Down() }
}

enum AssistFixtures {
    static let logger: Logger = {
        var logger = Logger(label: "assist-tests")
        logger.logLevel = .critical
        return logger
    }()

    /// 1 cent per 1K input tokens, 10 cents per 1K output tokens for every scripted model.
    static let prices = ModelPrices([
        "a:m": ModelPrice(inputCentsPer1K: 1, outputCentsPer1K: 10),
        "b:m": ModelPrice(inputCentsPer1K: 1, outputCentsPer1K: 10),
        "c:m": ModelPrice(inputCentsPer1K: 1, outputCentsPer1K: 10),
        "local:offline-v1": .free,
    ])

    static func request(_ phase: ModelPhase = .synthesis, maxOutputTokens: Int = 100, prompt: String = String(repeating: "x", count: 400))
        -> ModelRequest
    {
        ModelRequest(
            phase: phase, system: "", prompt: prompt, maxOutputTokens: maxOutputTokens, temperature: 0.3,
            runId: "run-1", userId: "user-1", offlineAnswer: "The offline plan for this week.")
    }
}
