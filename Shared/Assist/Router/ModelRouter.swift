import Foundation
import HearthStore
import Logging

/// Sends each request to the first provider of its phase's chain that can answer within the
/// budget. Before a metered call it reserves the worst case — the prompt's estimated tokens plus
/// `maxOutputTokens`, at the model's prices — and afterwards settles to the usage the provider
/// reported; a provider that fails, or whose worst case no longer fits, hands over to the next.
public struct ModelRouter: Sendable {
    let chains: [ModelPhase: [any ModelProvider]]
    let prices: ModelPrices
    let ledger: any BudgetLedger
    let logger: Logger

    public init(chains: [ModelPhase: [any ModelProvider]], prices: ModelPrices, ledger: any BudgetLedger, logger: Logger) {
        self.chains = chains
        self.prices = prices
        self.ledger = ledger
        self.logger = logger
    }

    /// `provider:model` of each phase's chain in order, for start-up logs and diagnostics.
    public var chainDescription: [ModelPhase: [String]] {
        chains.mapValues { $0.map { ModelPrices.key(provider: $0.name, model: $0.model) } }
    }

    /// Whether the phase's chain names a real (metered) provider, not only the offline one: a flow
    /// that can use what only a model gives (tool calls) asks before it relies on them.
    public func hasMeteredProvider(for phase: ModelPhase) -> Bool {
        chains[phase]?.contains { $0.isMetered } ?? false
    }

    /// Tries the phase's chain in order; before each call RESERVES the worst case (prompt tokens +
    /// maxOutputTokens at the model's prices) against the run's budget atomically, settles to the
    /// provider-reported usage after; falls back to the next provider on error or when the
    /// reservation would exceed the budget. Records every attempt (also as metrics
    /// hearth_model_calls_total{provider,model,outcome}, hearth_model_tokens_total{provider,model,direction},
    /// hearth_model_cost_cents_total{provider,model}).
    ///
    /// Throws `ModelRouterError` when no provider answered (with the attempts), and
    /// `CancellationError` when the calling task is cancelled (without falling back).
    public func complete(
        _ request: ModelRequest, budget: BudgetScope, onToken: @escaping @Sendable (String) async -> Void
    ) async throws -> ModelResponse {
        guard let chain = chains[request.phase], !chain.isEmpty else { throw ModelRouterError.noProviders(request.phase) }
        var attempts: [ModelAttempt] = []
        for provider in chain {
            try Task.checkCancellation()
            let result = try await OperationTracing.span(
                "model \(provider.name)", attributes: ["gen_ai.system": provider.name, "gen_ai.request.model": provider.model]
            ) { span in
                let result = try await attempt(provider, request: request, budget: budget, onToken: onToken)
                span?.attributes["gen_ai.usage.input_tokens"] = result.attempt.inputTokens
                span?.attributes["gen_ai.usage.output_tokens"] = result.attempt.outputTokens
                span?.attributes["hearth.model.outcome"] = ModelCallMetrics.outcome(of: result.attempt)
                return result
            }
            attempts.append(result.attempt)
            ModelCallMetrics.record(result.attempt)
            log(result.attempt, request: request)
            switch result.ending {
            case .served(let text, let toolCalls):
                return ModelResponse(
                    text: text, provider: provider.name, model: provider.model,
                    inputTokens: result.attempt.inputTokens, outputTokens: result.attempt.outputTokens,
                    costCents: result.attempt.costCents, attempts: attempts, toolCalls: toolCalls)
            case .cancelled:
                throw CancellationError()
            case .failed(let streamedText) where streamedText != nil:
                throw ModelRouterError.interrupted(request.phase, attempts: attempts, partialText: streamedText ?? "")
            case .failed, .skipped:
                continue
            }
        }
        throw ModelRouterError.exhausted(request.phase, attempts: attempts)
    }

    private enum Ending {
        case served(text: String, toolCalls: [ModelToolCall])
        /// `streamedText` is set when the caller had already received text from this provider.
        case failed(streamedText: String?)
        case skipped
        case cancelled
    }

    private struct AttemptResult {
        var attempt: ModelAttempt
        var ending: Ending
    }

    private func attempt(
        _ provider: any ModelProvider, request: ModelRequest, budget: BudgetScope,
        onToken: @escaping @Sendable (String) async -> Void
    ) async throws -> AttemptResult {
        func record(_ outcome: String, input: Int = 0, output: Int = 0, cents: Double = 0, latencyMs: Double = 0) -> ModelAttempt {
            ModelAttempt(
                provider: provider.name, model: provider.model, inputTokens: input, outputTokens: output,
                costCents: cents, latencyMs: latencyMs, outcome: outcome)
        }

        let price: ModelPrice
        if let listed = prices.price(provider: provider.name, model: provider.model) {
            price = listed
        } else if !provider.isMetered {
            price = .free
        } else {
            // Calling a model whose price is unknown would make the budget meaningless.
            let key = ModelPrices.key(provider: provider.name, model: provider.model)
            return AttemptResult(attempt: record(ModelAttempt.errorOutcome("no price configured for \(key)")), ending: .skipped)
        }

        var reservation: BudgetReservation?
        var capReservation: BudgetReservation?
        if provider.isMetered {
            let worstInput = TokenEstimator.inputTokens(of: request)
            let worstOutput = max(0, request.maxOutputTokens)
            let worstCents = price.cents(inputTokens: worstInput, outputTokens: worstOutput)
            do {
                // The wider cap first: a user over their month spends nothing of the run's budget.
                if let cap = budget.cap {
                    capReservation = try await ledger.reserve(cap.scope, cents: worstCents, tokens: worstInput + worstOutput)
                    guard capReservation != nil else {
                        return AttemptResult(attempt: record(ModelAttempt.skippedSpendCapOutcome), ending: .skipped)
                    }
                }
                reservation = try await ledger.reserve(budget, cents: worstCents, tokens: worstInput + worstOutput)
            } catch {
                if let capReservation { await settle(capReservation, cents: 0, tokens: 0) }
                if Task.isCancelled { return AttemptResult(attempt: record(ModelAttempt.errorOutcome("cancelled")), ending: .cancelled) }
                // No reservation, no metered call: failing closed keeps spend bounded while the
                // ledger is unreachable, and an unmetered provider later in the chain still answers.
                return AttemptResult(attempt: record(ModelAttempt.errorOutcome("budget ledger unavailable: \(Self.short(error))")), ending: .skipped)
            }
            guard reservation != nil else {
                if let capReservation { await settle(capReservation, cents: 0, tokens: 0) }
                return AttemptResult(attempt: record(ModelAttempt.skippedBudgetOutcome), ending: .skipped)
            }
        }

        let streamed = StreamedTextFlag()
        let started = ContinuousClock.now
        do {
            let result = try await provider.complete(request) { token in
                streamed.markStreamed()
                await onToken(Self.storable(token))
            }
            let latency = Self.milliseconds(since: started)
            let cents = price.cents(inputTokens: result.inputTokens, outputTokens: result.outputTokens)
            for held in [reservation, capReservation].compactMap({ $0 }) {
                await settle(held, cents: cents, tokens: result.inputTokens + result.outputTokens)
            }
            return AttemptResult(
                attempt: record(ModelAttempt.okOutcome, input: result.inputTokens, output: result.outputTokens, cents: cents, latencyMs: latency),
                ending: .served(text: Self.storable(result.text), toolCalls: result.toolCalls.map(Self.storable)))
        } catch {
            let latency = Self.milliseconds(since: started)
            let partial = (error as? ModelProviderError)?.partial
            let input = partial?.inputTokens ?? 0
            let output = partial?.outputTokens ?? 0
            let cents = price.cents(inputTokens: input, outputTokens: output)
            for held in [reservation, capReservation].compactMap({ $0 }) { await settle(held, cents: cents, tokens: input + output) }
            if error is CancellationError || Task.isCancelled {
                return AttemptResult(
                    attempt: record(ModelAttempt.errorOutcome("cancelled"), input: input, output: output, cents: cents, latencyMs: latency),
                    ending: .cancelled)
            }
            return AttemptResult(
                attempt: record(ModelAttempt.errorOutcome(Self.short(error)), input: input, output: output, cents: cents, latencyMs: latency),
                ending: .failed(streamedText: streamed.hasStreamed ? Self.storable(partial?.text ?? "") : nil))
        }
    }

    /// Model text without U+0000. A model may emit it; every run event and read model the text
    /// reaches is stored in Postgres, which cannot hold it, so the run would be parked and lost.
    static func storable(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "") : text
    }

    /// A tool call without U+0000, for the same reason: callers record the calls in run events.
    /// JSON text cannot hold a raw U+0000 anyway (it must be escaped), so valid arguments are
    /// never changed.
    static func storable(_ call: ModelToolCall) -> ModelToolCall {
        ModelToolCall(id: storable(call.id), name: storable(call.name), arguments: storable(call.arguments))
    }

    /// Settles outside the calling task: a cancelled run must still release what it held, and
    /// Postgres queries started from a cancelled task may be abandoned.
    private func settle(_ reservation: BudgetReservation, cents: Double, tokens: Int) async {
        let ledger = self.ledger
        let logger = self.logger
        await Task {
            do {
                try await ledger.settle(reservation, cents: cents, tokens: tokens)
            } catch {
                // The reservation stays held (over-counting, the safe side) until it expires.
                logger.error("could not settle a model budget reservation", metadata: [
                    "budget_key": "\(reservation.scopeKey)", "error": "\(Self.short(error))",
                ])
            }
        }.value
    }

    private func log(_ attempt: ModelAttempt, request: ModelRequest) {
        var metadata: Logger.Metadata = [
            "run_id": "\(request.runId)", "phase": "\(request.phase.rawValue)",
            "provider": "\(attempt.provider)", "model": "\(attempt.model)", "outcome": "\(attempt.outcome)",
            "input_tokens": "\(attempt.inputTokens)", "output_tokens": "\(attempt.outputTokens)",
            "cost_cents": "\(attempt.costCents)", "latency_ms": "\(Int(attempt.latencyMs))",
        ]
        if let userId = request.userId { metadata["user_id"] = "\(userId)" }
        if attempt.succeeded {
            logger.info("model call", metadata: metadata)
        } else {
            logger.warning("model call did not answer", metadata: metadata)
        }
    }

    static func short(_ error: any Error) -> String {
        let text = "\(error)"
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}
