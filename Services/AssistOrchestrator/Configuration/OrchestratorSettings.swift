import Foundation
import HearthConfiguration
import HearthRuntime

/// Everything the assist-orchestrator reads beyond `ServiceSettings`, except the model providers
/// and their keys (`ModelRouter.fromEnvironment`). The README's configuration section lists each
/// variable with its default (`ConfigurationDocsTests` holds the two together).
public struct OrchestratorSettings: Sendable {
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
    /// What one user's runs may spend on metered models in a calendar month (UTC), in cents;
    /// 0: no cap beyond each run's budget.
    var userMonthlySpendCents: Int
    var assistantActionLifetime: Int
    /// How `fetch_recipes` and the assistant find knowledge (`HEARTH_ASSIST_RECIPE_SEARCH`).
    var recipeSearch: RecipeSearchMode
    /// How long a run's content is kept (`HEARTH_RUN_RETENTION_DAYS`); nil: for ever.
    var runRetention: TimeInterval?
    /// How often runs past retention are looked for.
    var retentionCheckInterval: Duration

    enum RecipeSearchMode: String, Sendable {
        /// Vector and keyword search over the embedding-worker's index, with the catalogue behind it.
        case hybrid
        /// The bundled recipe catalogue alone.
        case catalogue
    }

    static func load(from service: ServiceSettings) throws -> OrchestratorSettings {
        let environment = service.environment
        return OrchestratorSettings(
            maxConcurrentRuns: try environment.int("HEARTH_ASSIST_MAX_CONCURRENT_RUNS", default: 32, range: 1...10_000),
            fetchWaitMs: try environment.int("HEARTH_ASSIST_FETCH_WAIT_MS", default: 1, range: 0...5_000),
            runEventLingerMs: try environment.decimal("HEARTH_ASSIST_RUN_LINGER_MS", default: 0.25, range: 0...1_000),
            maxInFlight: try environment.int("HEARTH_ASSIST_MAX_IN_FLIGHT", default: 5, range: 1...5),
            runBudgetCents: try environment.int("HEARTH_RUN_BUDGET_CENTS", default: 10, range: 0...1_000_000),
            runTokenLimit: try environment.int("HEARTH_RUN_TOKEN_LIMIT", default: 2000, range: 1...10_000_000),
            userMonthlySpendCents: try environment.int("HEARTH_USER_MONTHLY_SPEND_CENTS", default: 0, range: 0...100_000_000),
            assistantActionLifetime: try environment.int("HEARTH_ASSISTANT_ACTION_TTL_S", default: 86_400, range: 1...30 * 86_400),
            recipeSearch: try recipeSearch(environment.string("HEARTH_ASSIST_RECIPE_SEARCH", default: "hybrid")),
            runRetention: try retention(environment.decimal("HEARTH_RUN_RETENTION_DAYS", default: 365, range: 0...36_500)),
            retentionCheckInterval: .seconds(try environment.int("HEARTH_RETENTION_CHECK_SECONDS", default: 3600, range: 1...86_400)))
    }

    /// Days to seconds; 0 keeps runs for ever.
    private static func retention(_ days: Double) -> TimeInterval? {
        days == 0 ? nil : days * 86_400
    }

    private static func recipeSearch(_ text: String) throws -> RecipeSearchMode {
        guard let mode = RecipeSearchMode(rawValue: text) else {
            throw ConfigurationError(variable: "HEARTH_ASSIST_RECIPE_SEARCH", reason: "expected hybrid or catalogue, got \(text)")
        }
        return mode
    }
}
