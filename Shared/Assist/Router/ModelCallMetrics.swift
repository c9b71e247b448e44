import Metrics

/// The Prometheus series of model calls. The outcome label is bounded (`ok`, `error`,
/// `skipped_budget`, `skipped_spend_cap`); the error's text stays in the attempt and the log, not in a label.
enum ModelCallMetrics {
    static func record(_ attempt: ModelAttempt) {
        let outcome: String
        if attempt.succeeded {
            outcome = "ok"
        } else if attempt.outcome == ModelAttempt.skippedBudgetOutcome {
            outcome = "skipped_budget"
        } else if attempt.outcome == ModelAttempt.skippedSpendCapOutcome {
            outcome = "skipped_spend_cap"
        } else {
            outcome = "error"
        }
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
