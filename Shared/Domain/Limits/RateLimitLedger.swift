import Foundation
import Synchronization

/// Rate-limit counts as one gateway instance sees them: its own hits counted in memory, at once,
/// plus the totals of every instance as last read from the shared store.
///
/// Counting each request in Postgres cost a round trip per request, which capped the gateway's
/// throughput at the database's. Here a request only touches memory; a flusher sends the hits
/// counted since its last run as one batch and learns the shared totals back. An instance's own
/// hits always count exactly, so one instance never lets more than the limit through; hits at
/// other instances are seen after at most one flush interval.
public final class RateLimitLedger: Sendable {
    public struct WindowKey: Hashable, Sendable {
        public var bucket: String
        public var windowStart: Date

        public init(bucket: String, windowStart: Date) {
            self.bucket = bucket
            self.windowStart = windowStart
        }
    }

    /// One flush's worth of work: the hits to add to the shared store per window.
    public struct Batch: Sendable, Equatable {
        public var hits: [WindowKey: Int]
    }

    private struct Counts {
        /// Hits counted here and not yet sent.
        var unsent = 0
        /// Hits being sent by the flush in progress.
        var sending = 0
        /// The shared total (every instance) as the last flush read it back.
        var shared = 0
    }

    private let windows = Mutex<[WindowKey: Counts]>([:])

    public init() {}

    /// Counts one request in each bucket and answers each bucket's count, this request included.
    public func hit(_ buckets: [String], windowStart: Date) -> [String: Int] {
        windows.withLock { windows in
            var counts: [String: Int] = [:]
            for bucket in buckets {
                let key = WindowKey(bucket: bucket, windowStart: windowStart)
                var entry = windows[key] ?? Counts()
                entry.unsent += 1
                windows[key] = entry
                counts[bucket] = entry.shared + entry.sending + entry.unsent
            }
            return counts
        }
    }

    /// Takes the unsent hits for a flush. Call `finish` or `abandon` with the batch afterwards.
    public func takeBatch() -> Batch {
        windows.withLock { windows in
            var hits: [WindowKey: Int] = [:]
            for (key, var entry) in windows where entry.unsent > 0 {
                hits[key] = entry.unsent
                entry.sending += entry.unsent
                entry.unsent = 0
                windows[key] = entry
            }
            return Batch(hits: hits)
        }
    }

    /// The store took the batch and answered the new shared totals (which include the batch).
    public func finish(_ batch: Batch, sharedTotals: [WindowKey: Int]) {
        windows.withLock { windows in
            for (key, sent) in batch.hits {
                guard var entry = windows[key] else { continue }
                entry.sending -= sent
                entry.shared = max(entry.shared + sent, sharedTotals[key] ?? 0)
                windows[key] = entry
            }
        }
    }

    /// The store could not take the batch: its hits go back to unsent, to be sent next time.
    public func abandon(_ batch: Batch) {
        windows.withLock { windows in
            for (key, sent) in batch.hits {
                guard var entry = windows[key] else { continue }
                entry.sending -= sent
                entry.unsent += sent
                windows[key] = entry
            }
        }
    }

    /// Forgets windows that started before `cutoff` (long over: their counts decide nothing
    /// any more), except those a flush in progress still reports on.
    public func forget(before cutoff: Date) {
        windows.withLock { windows in
            windows = windows.filter { key, entry in key.windowStart >= cutoff || entry.sending > 0 }
        }
    }

    /// Windows currently held (for tests and the metrics).
    public var windowCount: Int { windows.withLock { $0.count } }
}
