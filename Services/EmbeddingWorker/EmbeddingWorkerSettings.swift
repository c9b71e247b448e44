import HearthAssist
import HearthKnowledge
import HearthRuntime

/// Everything the embedding-worker reads beyond `ServiceSettings`: the embedder
/// (`EmbeddingSettings.provider`, shared with the searchers, which must embed queries with the
/// same model) and whether to publish the bundled library on a Hearth that has never seen content.
public struct EmbeddingWorkerSettings: Sendable {
    var provider: any EmbeddingProvider
    var seedsContent: Bool
    /// The activity moderation pipeline's safety screen (the bundled policy) and its similarity
    /// thresholds (`HEARTH_ACTIVITY_DUPLICATE_SIMILARITY`, `HEARTH_ACTIVITY_HOLD_SIMILARITY`).
    var screen: ActivitySubmissionScreen
    var thresholds: ActivityModerationDecision.Thresholds

    static func load(from service: ServiceSettings) throws -> EmbeddingWorkerSettings {
        let measured = ActivityModerationDecision.Thresholds.measured
        return EmbeddingWorkerSettings(
            provider: try EmbeddingSettings.provider(environment: service.environment),
            seedsContent: try service.environment.bool("HEARTH_SEED_CONTENT", default: true),
            screen: ActivitySubmissionScreen(policy: try SafetyPolicy.load()),
            thresholds: ActivityModerationDecision.Thresholds(
                duplicateAt: try service.environment.decimal("HEARTH_ACTIVITY_DUPLICATE_SIMILARITY", default: measured.duplicateAt, range: 0...1),
                holdAt: try service.environment.decimal("HEARTH_ACTIVITY_HOLD_SIMILARITY", default: measured.holdAt, range: 0...1)))
    }
}
