import Logging
import PostgresNIO
import ServiceLifecycle

/// Once per start, after the migrations: documents embedded with another model than the active
/// one are embedded again, so a change of model never leaves two models in the index.
struct StaleEmbeddingSweep: Service {
    let writer: DocumentChunkWriter
    let client: PostgresClient
    let logger: Logger

    func run() async throws {
        let count = try await writer.reembedStale(client: client, logger: logger)
        if count > 0 { logger.info("re-embedding finished", metadata: ["documents": "\(count)", "model": "\(writer.provider.model)"]) }
        // A service that returns ends the application; wait for shutdown instead.
        try? await gracefulShutdown()
    }
}
