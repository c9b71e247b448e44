import Metrics

/// The Prometheus series of model calls. The outcome label is bounded (`ok`, `error`,
/// `skipped_budget`, `skipped_spend_cap`); the error's text stays in the attempt and the log, not in a label.
enum ModelCallMetrics {
    /// The attempt's outcome as a bounded word (for labels and span attributes): never the
    /// error's text, which can quote what a provider streamed back.
    static func outcome(of attempt: ModelAttempt) -> String {
        if attempt.succeeded { return "ok" }
        if attempt.outcome == ModelAttempt.skippedBudgetOutcome { return "skipped_budget" }
        if attempt.outcome == ModelAttempt.skippedSpendCapOutcome { return "skipped_spend_cap" }
        return "error"
    }

    static func record(_ attempt: ModelAttempt) {
        let outcome = outcome(of: attempt)
        let model: [(String, String)] = [("provider", attempt.provider), ("model", attempt.model)]
        Counter(label: "hearth_model_calls_total", dimensions: model + [("outcome", outcome)]).increment()
        if attempt.inputTokens > 0 {
            Counter(label: "hearth_model_tokens_total", dimensions: model + [("direction", "input")]).increment(by: attempt.inputTokens)
        }
        if attempt.outputTokens > 0 {
            Counter(label: "hearth_model_tokens_total", dimensions: model + [("direction", "output")]).increment(by: attempt.outputTokens)
        }
        // Always touched, so a free (local) model still shows its series at zero cost.
        FloatingPointCounter(label: "hearth_model_cost_cents_total", dimensions: model).increment(by: max(0, attempt.costCents))
    }
}
