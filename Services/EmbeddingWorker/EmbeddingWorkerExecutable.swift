import Foundation
import HearthKafka
import HearthKnowledge
import HearthRuntime
import HearthStore

/// The embedding-worker executable: chunks and embeds the `content` topic into `document_chunks`
/// and chat messages into `chat_message_embeddings`; on a Hearth that has never seen content,
/// publishes the bundled library first (`BundledContentSeed`). The embedder is read from the
/// configuration up front (a bad one stops the start-up) but loads its model on the first
/// document, so an idle worker stays small.
public enum EmbeddingWorkerExecutable {
    public static let name = "embedding-worker"
    public static let defaultPort = 8082

    public static func run() async {
        await ServiceHost.launch(
            service: name, defaultPort: defaultPort, migrations: EmbeddingWorkerReadModels.migrations,
            configure: EmbeddingWorkerSettings.load(from:),
            projections: { settings, publisher in
                EmbeddingWorkerReadModels.projections(provider: settings.provider, announcer: ContentEmbeddedAnnouncer(publisher: publisher))
            }
        ) { host, settings in
            let sweep = StaleEmbeddingSweep(writer: DocumentChunkWriter(provider: settings.provider), client: host.postgres, logger: host.logger)
            guard settings.seedsContent else { return ServiceHost.Additions(services: [sweep]) }
            let seed = BundledContentSeed(
                client: host.postgres, admin: KafkaAdmin(bootstrapServers: host.settings.kafkaBootstrap, logger: host.logger),
                publisher: host.publisher, logger: host.logger)
            return ServiceHost.Additions(services: [sweep, seed])
        }
    }
}

/// The tables the embedding-worker owns (`Migrations/`) and the projections that fill them.
public enum EmbeddingWorkerReadModels {
    public static func migrations() throws -> [Migration] {
        try Migration.load(owner: EmbeddingWorkerExecutable.name, folder: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

    /// `announcer` is nil for a replay: a rebuild announces nothing.
    public static func projections(provider: any EmbeddingProvider, announcer: ContentEmbeddedAnnouncer?) -> [any Projection] {
        [DocumentChunksProjection(provider: provider, announcer: announcer), ChatMessageEmbeddingsProjection(provider: provider)]
    }
}
