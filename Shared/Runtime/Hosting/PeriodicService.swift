import Logging
import ServiceLifecycle

/// A piece of work done every `interval` for as long as the process runs (erasing due accounts,
/// building exports, expiring old runs): a failed round is logged and the next one tries again;
/// shutdown ends the wait at once.
public struct PeriodicService: Service {
    /// What the work is, for the log line of a failed round ("erasing due accounts").
    let work: String
    let interval: Duration
    let logger: Logger
    let round: @Sendable () async throws -> Void

    public init(_ work: String, every interval: Duration, logger: Logger, round: @escaping @Sendable () async throws -> Void) {
        self.work = work
        self.interval = interval
        self.logger = logger
        self.round = round
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await round()
            } catch {
                logger.warning("\(work) failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
