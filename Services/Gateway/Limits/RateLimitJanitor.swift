import Foundation
import Logging
import ServiceLifecycle

/// Deletes rate-limit windows that ended a while ago, once a minute. Every instance runs one; the
/// deletes are idempotent, so several at once do no harm.
struct RateLimitJanitor: Service {
    let store: RateLimitCounterStore
    let logger: Logger
    var keep: TimeInterval = 300

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await store.deleteWindows(before: Date().addingTimeInterval(-keep))
            } catch {
                logger.warning("cannot delete old rate-limit windows", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await gracefulShutdownAwareSleep(.seconds(60))
        }
    }

    private func gracefulShutdownAwareSleep(_ duration: Duration) async throws {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    }
}
