import HearthStore
import Logging
import PostgresNIO
import ServiceLifecycle

/// Applies the executable's migrations at start-up, retrying while Postgres is not reachable yet,
/// then opens the gate the projections wait behind.
struct MigrationService: Service {
    let client: PostgresClient
    let migrations: [Migration]
    let gate: StartupGate
    let logger: Logger

    func run() async throws {
        var backoff = Duration.milliseconds(200)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await MigrationRunner(client: client, logger: logger).apply(migrations)
                gate.open()
                break
            } catch let error as MigrationError {
                throw error
            } catch {
                // Stopping cancels the attempt; that is no reason to warn about a retry.
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.warning("migrations not applied yet, retrying", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        try? await gracefulShutdown()
    }
}

/// Starts a service only once the gate is open (projections wait for their tables).
struct GatedService: Service {
    let gate: StartupGate
    let service: any Service

    func run() async throws {
        await withTaskCancellationOrGracefulShutdownHandler {
            await gate.wait()
        } onCancelOrGracefulShutdown: {
            gate.releaseWaiters()
        }
        guard gate.isOpen, !Task.isShuttingDownGracefully else { return }
        try await service.run()
    }
}
