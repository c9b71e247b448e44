import EmbeddingWorkerService
import GatewayService
import HearthConfiguration
import HearthKnowledge
import HearthRuntime
import HearthStore
import Testing

/// A projection states its own batch size; `HEARTH_PROJECTION_BATCH_SIZE`, when set, wins.
@Suite struct ProjectionBatchSizeTests {
    let embedding = EmbeddingWorkerReadModels.projections(provider: MiniLMEmbeddingProvider(), publisher: nil)
    let households = GatewayReadModels.projections()

    @Test func embeddingProjectionsTakeSmallBatchesAndOthersTheDefault() throws {
        let settings = try ServiceSettings.load(service: "test", defaultPort: 0, environment: EnvironmentReader(ServiceSettingsFixture.production))
        #expect(embedding.map { settings.projectionOptions(for: $0).maxBatchSize } == [32, 32, 32])
        #expect(households.allSatisfy { settings.projectionOptions(for: $0).maxBatchSize == 1000 })
    }

    @Test func theSettingWinsOverEveryProjectionsOwnSize() throws {
        let settings = try ServiceSettings.load(
            service: "test", defaultPort: 0, environment: EnvironmentReader(ServiceSettingsFixture.production.merging(["HEARTH_PROJECTION_BATCH_SIZE": "7"]) { $1 }))
        #expect((embedding + households).allSatisfy { settings.projectionOptions(for: $0).maxBatchSize == 7 })
    }
}
