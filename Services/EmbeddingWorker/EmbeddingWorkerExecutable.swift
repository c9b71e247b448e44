import Foundation
import HearthKafka
import HearthKnowledge
import HearthRuntime
import HearthStore

/// The embedding-worker executable: chunks and embeds the `content` topic into `document_chunks`
/// and chat messages into `chat_message_embeddings`; moderates submissions to the activity feed
/// (`ActivityModerationProjection`); on a Hearth that has never seen content,
/// publishes the bundled library first (`BundledContentSeed`). The embedder is read from the
/// configuration up front (a bad one stops the start-up) but loads its model on the first
/// document, so an idle worker stays small.
public enum EmbeddingWorkerExecutable: HearthExecutable {
    public static let name = "embedding-worker"
    public static let defaultPort = 8082
    public static var migrationsFolder: URL { (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Migrations") }

    public static func settings(from common: ServiceSettings) throws -> EmbeddingWorkerSettings {
        try EmbeddingWorkerSettings.load(from: common)
    }

    public static func projections(settings: EmbeddingWorkerSettings, publisher: EventPublisher) -> [any Projection] {
        EmbeddingWorkerReadModels.projections(
            provider: settings.provider, publisher: publisher,
            moderator: ActivityModerationProjection.Moderator(screen: settings.screen, thresholds: settings.thresholds, publisher: publisher))
    }

    public static func assemble(host: ServiceHost, settings: EmbeddingWorkerSettings) -> ServiceHost.Additions {
        let sweep = StaleEmbeddingSweep(writer: DocumentChunkWriter(provider: settings.provider), client: host.postgres, logger: host.logger)
        guard settings.seedsContent else { return ServiceHost.Additions(services: [sweep]) }
        let seed = BundledContentSeed(
            client: host.postgres, admin: KafkaAdmin(bootstrapServers: host.settings.kafkaBootstrap, logger: host.logger),
            publisher: host.publisher, logger: host.logger)
        return ServiceHost.Additions(services: [sweep, seed])
    }
}

/// The projections that fill the embedding-worker's tables.
public enum EmbeddingWorkerReadModels {
    /// `publisher` and `moderator` are nil for a replay: a rebuild announces and decides nothing.
    public static func projections(
        provider: any EmbeddingProvider, publisher: EventPublisher?, moderator: ActivityModerationProjection.Moderator? = nil
    ) -> [any Projection] {
        [
            DocumentChunksProjection(provider: provider, publisher: publisher), ChatMessageEmbeddingsProjection(provider: provider),
            ActivityModerationProjection(provider: provider, moderator: moderator),
        ]
    }
}
