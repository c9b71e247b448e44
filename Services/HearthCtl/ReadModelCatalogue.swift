import AssistOrchestratorService
import CalendarSyncService
import EmbeddingWorkerService
import Foundation
import GatewayService
import HearthConfiguration
import HearthKnowledge
import HearthPrivacy
import HearthStore
import NotifierService
import ProfileExtractorService

/// Every executable's read models, as hearthctl sees them: their migrations and the projections
/// a replay rebuilds. Each executable applies and runs only its own (its library hands them to
/// `ServiceHost`); this catalogue only gathers them.
public enum ReadModelCatalogue {
    public enum Owner: String, CaseIterable, Sendable {
        case gateway
        case assistOrchestrator = "assist-orchestrator"
        case embeddingWorker = "embedding-worker"
        case profileExtractor = "profile-extractor"
        case calendarSync = "calendar-sync"
        case notifier
    }

    /// Tables an executable reads that another executable owns (creates in its migrations). Only
    /// the owner writes its tables; a reader takes them as the owner's projections left them, so
    /// a change to one of these tables is a change to the readers too. `TableReadsTests` checks
    /// every executable's sources (and the shared code they use) against this list.
    public static let foreignReads: [Owner: Set<String>] = [
        // The run history and usage (`/v1/assist/runs`, `/v1/usage`), the notification inbox and
        // its reminders, chat search, and knowledge search.
        .gateway: [
            "agent_runs", "assist_run_events", "notification_inbox", "reminders", "chat_message_embeddings", "document_chunks",
            // A user's export: their model calls and notification settings.
            "run_metrics", "notification_settings",
            // Security: the per-user webhook cap, and device tokens staying with their owner.
            "notification_webhooks", "notification_devices",
            // Offline activity ideas rank by the embedding-worker's vectors of the live activities.
            "activity_vectors",
        ],
        // The assistant's retrieval: knowledge and the user's own chats, in the households they
        // still belong to.
        .assistOrchestrator: ["chat_members", "chats", "household_chat_access", "chat_message_embeddings", "document_chunks"],
        // A new-message push goes only to a member of the chat's household who is not watching
        // the chat (`chat_stream_presence`, kept by the gateways), with their unread count.
        // (`household_chat_access()` is the gateway's SQL function over `user_households`, `coach_clients` and the coaches' groups.)
        .notifier: ["household_chat_access", "chat_stream_presence", "chat_members", "chats", "chat_messages",
                    // The webhook secrets the gateway sealed, opened when a delivery is signed.
                    "webhook_secrets"],
        // The refresh tokens the gateway stored when the user linked Google.
        .calendarSync: ["google_credentials"],
    ]

    /// The folder under `Services/` that holds an executable's sources.
    public static func sourceFolder(of owner: Owner) -> String {
        switch owner {
        case .gateway: "Gateway"
        case .assistOrchestrator: "AssistOrchestrator"
        case .embeddingWorker: "EmbeddingWorker"
        case .profileExtractor: "ProfileExtractor"
        case .calendarSync: "CalendarSync"
        case .notifier: "Notifier"
        }
    }

    /// The projections a replay rebuilds: none of them publishes (built without a publisher) and
    /// none calls another system (calendar-sync's Google mirror is not here).
    public static func projections(of owner: Owner) -> [any Projection] {
        switch owner {
        case .gateway: GatewayReadModels.projections()
        case .assistOrchestrator: AssistOrchestratorReadModels.projections()
        case .notifier: NotifierReadModels.projections(secrets: replaySecrets)
        case .embeddingWorker: EmbeddingWorkerReadModels.projections(provider: activeEmbeddingProvider, publisher: nil)
        case .profileExtractor: ProfileExtractorReadModels.projections()
        case .calendarSync: []
        }
    }

    /// The embedder the configuration names (`HEARTH_EMBEDDING_PROVIDER`); MiniLM when the
    /// configuration is unusable here, so that listing projections never fails. The embedding-worker
    /// builds its own projection and refuses to start on a bad configuration.
    static var activeEmbeddingProvider: any EmbeddingProvider {
        (try? EmbeddingSettings.provider()) ?? MiniLMEmbeddingProvider()
    }

    /// The secrets key the services share (`HEARTH_SECRETS_KEY`, else the one `make run` generated
    /// under `$HEARTH_RUN_DIR`), for the notifier's projection to seal the webhook secrets old
    /// events carried as the notifier does; nil when there is none (those webhooks then rebuild
    /// without a secret). Never a key of hearthctl's own: what it sealed would open nowhere else.
    static var replaySecrets: SecretBox? {
        let environment = EnvironmentReader()
        let runDirectory = environment.string("HEARTH_RUN_DIR", default: ".run")
        let generatedExists = FileManager.default.fileExists(atPath: URL(fileURLWithPath: runDirectory).appendingPathComponent("secrets.key").path)
        guard environment.trimmed("HEARTH_SECRETS_KEY") != nil || generatedExists else { return nil }
        return try? SecretBox.load(environment: environment, runDirectory: runDirectory, allowGenerated: true)
    }

    public static var allProjections: [any Projection] { Owner.allCases.flatMap(projections(of:)) }

    public static func projection(named name: String) -> (any Projection)? {
        allProjections.first { $0.name == name }
    }

    public static func migrations(of owner: Owner) throws -> [Migration] {
        switch owner {
        case .gateway: try GatewayExecutable.migrations()
        case .assistOrchestrator: try AssistOrchestratorExecutable.migrations()
        case .notifier: try NotifierExecutable.migrations()
        case .embeddingWorker: try EmbeddingWorkerExecutable.migrations()
        case .profileExtractor: try ProfileExtractorExecutable.migrations()
        case .calendarSync: try CalendarSyncExecutable.migrations()
        }
    }

    public static func allMigrations() throws -> [Migration] {
        try Owner.allCases.flatMap(migrations(of:))
    }
}
