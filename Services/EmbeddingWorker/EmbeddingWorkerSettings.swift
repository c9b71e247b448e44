import HearthKnowledge
import HearthRuntime

/// Everything the embedding-worker reads beyond `ServiceSettings`: the embedder
/// (`EmbeddingSettings.provider`, shared with the searchers, which must embed queries with the
/// same model) and whether to publish the bundled library on a Hearth that has never seen content.
public struct EmbeddingWorkerSettings: Sendable {
    var provider: any EmbeddingProvider
    var seedsContent: Bool

    static func load(from service: ServiceSettings) throws -> EmbeddingWorkerSettings {
        EmbeddingWorkerSettings(
            provider: try EmbeddingSettings.provider(environment: service.environment),
            seedsContent: try service.environment.bool("HEARTH_SEED_CONTENT", default: true))
    }
}
