import Foundation
import HearthDomain
import HearthKnowledge
import HearthStore

/// Which executable owns which read models: their migrations (`Migrations/<owner>/NNNN_*.sql`) and
/// their projections. Each executable applies and runs only its own; `hearthctl` sees them all.
public enum ReadModelCatalogue {
    public enum Owner: String, CaseIterable, Sendable {
        case gateway
        case assistOrchestrator = "assist-orchestrator"
        case embeddingWorker = "embedding-worker"
        case profileExtractor = "profile-extractor"
        case calendarSync = "calendar-sync"
        case notifier
    }

    public static func projections(of owner: Owner) -> [any Projection] {
        switch owner {
        case .gateway: [HouseholdsProjection(), EventLogProjection(), UsersProjection(), HouseholdMembersProjection(), FeedbackProjection(),
                       CalendarEntriesProjection(), CalendarFeedsProjection(), ChatsProjection(), ProfileFactsProjection(),
                       AssistantActionsProjection()]
        case .assistOrchestrator: [AssistRunsProjection()]
        case .notifier: [RemindersProjection(), NotificationTargetsProjection(), NotificationInboxProjection()]
        case .embeddingWorker: [DocumentChunksProjection(provider: activeEmbeddingProvider), ChatMessageEmbeddingsProjection(provider: activeEmbeddingProvider)]
        case .profileExtractor: [ProfileExtractionProjection(extractor: bundledProfileExtractor)]
        case .calendarSync: []
        }
    }

    /// The embedder the configuration names (`HEARTH_EMBEDDING_PROVIDER`); MiniLM when the
    /// configuration is unusable here, so that listing projections never fails. The embedding-worker
    /// builds its own projection and refuses to start on a bad configuration.
    static var activeEmbeddingProvider: any EmbeddingProvider {
        (try? EmbeddingSettings.provider()) ?? MiniLMEmbeddingProvider()
    }

    /// The rule-based extractor over the bundled allergen vocabulary. The vocabulary ships with
    /// the binary and is checked by tests, so failing to load it is a build defect.
    static var bundledProfileExtractor: ProfileFactExtractor {
        do { return try ProfileFactExtractor.bundled() } catch { fatalError("bundled allergen vocabulary is unreadable: \(error)") }
    }

    public static var allProjections: [any Projection] { Owner.allCases.flatMap(projections(of:)) }

    public static func projection(named name: String) -> (any Projection)? {
        allProjections.first { $0.name == name }
    }

    public static func migrations(of owner: Owner) throws -> [Migration] {
        let folder = migrationsDirectory.appendingPathComponent(owner.rawValue)
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try Migration.load(owner: owner.rawValue, from: migrationsDirectory)
    }

    public static func allMigrations() throws -> [Migration] {
        try Owner.allCases.flatMap(migrations(of:))
    }

    static var migrationsDirectory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Migrations", isDirectory: true)
    }
}
