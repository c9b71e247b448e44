import HearthAssist
import HearthEvents

/// What a run's model calls used, attempt by attempt, fallbacks and failures included: the
/// numbers `assist.run_completed` carries into `agent_runs` and `run_metrics`.
struct ModelUsage: Sendable {
    private(set) var attempts: [AssistModelAttempt] = []
    private(set) var inputTokens = 0
    private(set) var outputTokens = 0
    private(set) var costCents = 0.0
    /// `provider/model` → successful calls, the seed's `models_used`.
    private(set) var modelsUsed: [String: Int] = [:]

    mutating func record(_ phase: ModelPhase, _ made: [ModelAttempt]) {
        for attempt in made {
            // The router writes `ok`, `error: <reason>` or `skipped: budget`; the table keeps the
            // kind and the reason apart so outcomes can be grouped.
            let parts = attempt.outcome.split(separator: ":", maxSplits: 1)
            let outcome = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? attempt.outcome
            let detail = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
            attempts.append(AssistModelAttempt(
                phase: phase.rawValue, provider: attempt.provider, model: attempt.model,
                inputTokens: attempt.inputTokens, outputTokens: attempt.outputTokens, costCents: attempt.costCents,
                latencyMs: Int(attempt.latencyMs.rounded()), outcome: outcome == "skipped" ? "skipped_\(detail ?? "")" : outcome,
                error: outcome == "error" ? detail : nil))
            inputTokens += attempt.inputTokens
            outputTokens += attempt.outputTokens
            costCents += attempt.costCents
            if attempt.succeeded { modelsUsed["\(attempt.provider)/\(attempt.model)", default: 0] += 1 }
        }
    }
}
