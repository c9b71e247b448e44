import AsyncHTTPClient
import Foundation
import HearthAssist
import HearthDomain
import HearthKnowledge
import HearthKafka
import HearthRuntime
import ServiceLifecycle

/// The orchestrator wired together: catalogues and planners loaded once, the model router, the
/// run-event producer, and the request consumer.
struct OrchestratorAssembly {
    let services: [any Service]

    /// Throws on unreadable content (`ServiceHost.launch` then stops the process with exit 78).
    static func make(host: ServiceHost, settings: OrchestratorSettings) throws -> OrchestratorAssembly {
        let logger = host.logger
        let recipes = try RecipeCatalogue.bundled()
        let matcher = try AllergenMatcher.bundled()
        let router = try ModelRouter.fromEnvironment(
            host.settings.environment, ledger: PostgresBudgetLedger(client: host.postgres, logger: logger),
            httpClient: HTTPClient.shared, logger: logger)
        // Run events get their own producer, which stops after the consumer, so runs finishing
        // during shutdown still flush. Several requests in flight: a run's later events do not
        // wait for the broker to acknowledge its first ones, a round trip inside the stream.
        let runProducer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                bootstrapServers: host.settings.kafkaBootstrap, clientId: "hearth-assist-orchestrator-runs", lingerMs: settings.runEventLingerMs,
                maxInFlightRequests: settings.maxInFlight),
            logger: logger)
        let search = try knowledgeSearch(host: host, mode: settings.recipeSearch)
        let runner = AssistRunner(
            sink: RunEventSink(producer: runProducer, source: host.settings.serviceName, publisher: host.publisher),
            router: router,
            safety: SafetyGate(policy: try SafetyPolicy.load()),
            meals: MealsFlow(catalogue: recipes, matcher: matcher, search: search, logger: logger),
            chores: ChoresFlow(scheduler: try ChoreScheduler.bundled()),
            routines: RoutinesFlow(builder: try RoutineBuilder.bundled()),
            assistant: AssistantFlow(
                retrieval: AssistantRetrieval(search: search, logger: logger),
                intents: AssistantIntentReader(logger: logger),
                actionLifetime: TimeInterval(settings.assistantActionLifetime)),
            summary: SummaryFlow(),
            settings: settings,
            logger: logger)
        let instance = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8).lowercased())"
        let consumer = try AssistRequestConsumer(
            bootstrapServers: host.settings.kafkaBootstrap, settings: settings,
            claims: RunClaims(client: host.postgres, instance: instance, logger: logger), runner: runner, keys: host.keys, logger: logger)
        host.readiness.addCheck("consumer:assist.requests") { consumer.isAssigned }
        logger.info("assist orchestrator configured", metadata: [
            "recipes": "\(recipes.recipes.count)", "max_concurrent_runs": "\(settings.maxConcurrentRuns)",
            "models": "\(router.chainDescription)",
        ])
        let retention = settings.runRetention.map {
            RunRetention(client: host.postgres, keys: host.keys, publisher: host.publisher, maxAge: $0, logger: logger)
                .service(every: settings.retentionCheckInterval)
        }
        return OrchestratorAssembly(services: [runProducer, consumer] + (retention.map { [$0] } ?? []))
    }

    /// The knowledge search for `fetch_recipes` and the assistant's retrieval, with the
    /// embedding-worker's model (loaded on first use); nil when `HEARTH_ASSIST_RECIPE_SEARCH=catalogue`.
    private static func knowledgeSearch(host: ServiceHost, mode: OrchestratorSettings.RecipeSearchMode) throws -> KnowledgeSearch? {
        switch mode {
        case .hybrid: try EmbeddingSettings.search(client: host.postgres, changes: host.readModelChanges, logger: host.logger, environment: host.settings.environment)
        case .catalogue: nil
        }
    }
}
