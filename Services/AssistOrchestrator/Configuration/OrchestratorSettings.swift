import HearthRuntime

/// What the assist-orchestrator reads beyond `ServiceSettings`:
///
/// | variable | default | meaning |
/// |---|---|---|
/// | HEARTH_ASSIST_MAX_CONCURRENT_RUNS | 32 | runs in flight at once in this process |
/// | HEARTH_ASSIST_FETCH_WAIT_MS | 1 | Kafka `fetch.wait.max.ms` for `assist.requests` |
/// | HEARTH_ASSIST_RUN_LINGER_MS | 0.25 | producer linger for run events, in milliseconds (fractions allowed; see `runEventLingerMs`) |
/// | HEARTH_ASSIST_MAX_IN_FLIGHT | 5 | produce requests of run events in flight at once (1–5; order holds: the producer is idempotent) |
/// | HEARTH_RUN_BUDGET_CENTS | 10 | spending cap of one run (the seed's $0.10) |
/// | HEARTH_RUN_TOKEN_LIMIT | 2000 | token cap of one run |
/// | HEARTH_ASSISTANT_ACTION_TTL_S | 86400 | how long an assistant's proposed action waits for a decision |
///
/// Model providers and their keys are read by `ModelRouter.fromEnvironment`.
struct OrchestratorSettings: Sendable {
    var maxConcurrentRuns: Int
    var fetchWaitMs: Int
    /// Why not 0: librdkafka (2.0) wakes its broker thread again at once while messages wait
    /// in its queue and every in-flight slot is taken, so with no linger a run's dozen events,
    /// each its own produce request, kept that thread spinning until acknowledgements came back.
    /// A quarter of a millisecond gathers each burst of events into one request instead. Measured
    /// on the dev stack, back-to-back meal plans: the orchestrator's CPU per run went from ~12.5 to
    /// ~5.3 ms and the stream's done p50 from ~11.0 to ~9.2 ms.
    var runEventLingerMs: Double
    var maxInFlight: Int
    var runBudgetCents: Int
    var runTokenLimit: Int
    var assistantActionLifetime: Int

    static func load(from service: ServiceSettings) throws -> OrchestratorSettings {
        let environment = service.environment
        return OrchestratorSettings(
            maxConcurrentRuns: try environment.int("HEARTH_ASSIST_MAX_CONCURRENT_RUNS", default: 32, range: 1...10_000),
            fetchWaitMs: try environment.int("HEARTH_ASSIST_FETCH_WAIT_MS", default: 1, range: 0...5_000),
            runEventLingerMs: try environment.decimal("HEARTH_ASSIST_RUN_LINGER_MS", default: 0.25, range: 0...1_000),
            maxInFlight: try environment.int("HEARTH_ASSIST_MAX_IN_FLIGHT", default: 5, range: 1...5),
            runBudgetCents: try environment.int("HEARTH_RUN_BUDGET_CENTS", default: 10, range: 0...1_000_000),
            runTokenLimit: try environment.int("HEARTH_RUN_TOKEN_LIMIT", default: 2000, range: 1...10_000_000),
            assistantActionLifetime: try environment.int("HEARTH_ASSISTANT_ACTION_TTL_S", default: 86_400, range: 1...30 * 86_400))
    }
}
