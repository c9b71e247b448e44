import Foundation
import HearthDomain
import Logging
import ServiceLifecycle

/// Keeps this instance's rate-limit ledger and the shared counters in step: sends the hits
/// counted since the last flush (every `flushInterval`), reads back every instance's totals, and
/// once a minute deletes windows that ended a while ago. Every instance runs one; the deletes are
/// idempotent, so several at once do no harm. The same minute's clean-up drops expired
/// `Idempotency-Key` answers.
struct RateLimitJanitor: Service {
    let store: RateLimitCounterStore
    let ledger: RateLimitLedger
    let idempotencyKeys: IdempotencyStore
    let logger: Logger
    var flushInterval: Duration = .milliseconds(100)
    var keep: TimeInterval = 300

    func run() async throws {
        var lastCleanup = ContinuousClock.now - .seconds(120)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await flush()
            if ContinuousClock.now - lastCleanup >= .seconds(60) {
                lastCleanup = .now
                ledger.forget(before: Date().addingTimeInterval(-120))
                do {
                    try await store.deleteWindows(before: Date().addingTimeInterval(-keep))
                } catch {
                    logger.warning("cannot delete old rate-limit windows", metadata: ["error": "\(String(reflecting: error))"])
                }
                do {
                    try await idempotencyKeys.deleteExpired()
                } catch {
                    logger.warning("cannot delete expired idempotency keys", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: flushInterval) }
        }
        await flush()
    }

    func flush() async {
        let batch = ledger.takeBatch()
        guard !batch.hits.isEmpty else { return }
        do {
            ledger.finish(batch, sharedTotals: try await store.add(batch.hits))
        } catch {
            // The hits stay in the ledger and go with the next flush; this instance's own counts
            // keep limiting meanwhile.
            ledger.abandon(batch)
            logger.warning("cannot share rate-limit counts", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
