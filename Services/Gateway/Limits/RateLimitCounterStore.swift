import Foundation
import HearthDomain
import Logging
import PostgresNIO

/// Request counters in Postgres (`rate_limit_counters`), so every gateway instance counts into the
/// same windows. This is operational state, not an event-sourced read model: nothing is published
/// for it, no projection owns it, replay ignores it, and losing it only resets the counts.
struct RateLimitCounterStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Adds a batch of hits and answers the new totals of the windows it touched. One statement,
    /// atomic per row, however many instances add at once.
    func add(_ hits: [RateLimitLedger.WindowKey: Int]) async throws -> [RateLimitLedger.WindowKey: Int] {
        guard !hits.isEmpty else { return [:] }
        let entries = Array(hits)
        let buckets = entries.map(\.key.bucket)
        let starts = entries.map { Int64($0.key.windowStart.timeIntervalSince1970.rounded(.down)) }
        let counts = entries.map { Int32(clamping: $0.value) }
        let rows = try await client.query(
            """
            INSERT INTO rate_limit_counters (bucket, window_start, hits)
            SELECT bucket, to_timestamp(start), added
            FROM unnest(\(buckets)::text[], \(starts)::bigint[], \(counts)::int[]) AS batch(bucket, start, added)
            ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + excluded.hits
            RETURNING bucket, extract(epoch FROM window_start)::bigint, hits
            """, logger: logger)
        var totals: [RateLimitLedger.WindowKey: Int] = [:]
        for try await (bucket, start, total) in rows.decode((String, Int64, Int32).self) {
            totals[.init(bucket: bucket, windowStart: Date(timeIntervalSince1970: TimeInterval(start)))] = Int(total)
        }
        return totals
    }

    func deleteWindows(before cutoff: Date) async throws {
        try await client.query("DELETE FROM rate_limit_counters WHERE window_start < \(cutoff)", logger: logger)
    }
}
