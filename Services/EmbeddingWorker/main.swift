import Foundation
import HearthKafka
import HearthKnowledge
import HearthReadModels
import HearthRuntime

// Chunks and embeds the `content` topic into `document_chunks`; on a Hearth that has never seen
// content, publishes the bundled library first (`BundledContentSeed`). The embedder is read from the
// configuration up front (a bad one stops the start-up) but loads its model on the first
// document, so an idle worker stays small.
let provider: any EmbeddingProvider
let seedsContent: Bool
do {
    provider = try EmbeddingSettings.provider()
    seedsContent = try EnvironmentReader().bool("HEARTH_SEED_CONTENT", default: true)
} catch {
    FileHandle.standardError.write(Data("embedding-worker: cannot start: \(error)\n".utf8))
    exit(78)  // EX_CONFIG
}
// Embedding takes far longer per event than other projections' writes: smaller batches keep each
// transaction (and the pause between Kafka polls) short. An explicit setting still wins.
if ProcessInfo.processInfo.environment["HEARTH_PROJECTION_BATCH_SIZE"] == nil {
    setenv("HEARTH_PROJECTION_BATCH_SIZE", "32", 1)
}
let announcer = ContentEmbeddedAnnouncer()
let host = ServiceHost.bootstrap(service: "embedding-worker", defaultPort: 8082, owner: .embeddingWorker) {
    [DocumentChunksProjection(provider: provider, announcer: announcer), ChatMessageEmbeddingsProjection(provider: provider)]
}
announcer.attach(host.publisher)
let sweep = StaleEmbeddingSweep(writer: DocumentChunkWriter(provider: provider), client: host.postgres, logger: host.logger)
let seed = BundledContentSeed(
    client: host.postgres, admin: KafkaAdmin(bootstrapServers: host.settings.kafkaBootstrap, logger: host.logger),
    publisher: host.publisher, logger: host.logger)
await host.run(extraServices: seedsContent ? [sweep, seed] : [sweep])
