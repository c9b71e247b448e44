import Foundation
import Logging
import PostgresNIO

/// Request counters in Postgres (`rate_limit_counters`), so every gateway instance counts into the
/// same windows. This is operational state, not an event-sourced read model: nothing is published
/// for it, no projection owns it, replay ignores it, and losing it only resets the counts.
struct RateLimitCounterStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Counts one request in each bucket for the window starting at `windowStart`, and returns
    /// each bucket's count including this request. One statement, atomic per row, however many
    /// instances count at once.
    func hit(_ buckets: [String], windowStart: Date) async throws -> [String: Int] {
        let rows = try await client.query(
            """
            INSERT INTO rate_limit_counters (bucket, window_start, hits)
            SELECT bucket, \(windowStart), 1 FROM unnest(\(buckets)::text[]) AS bucket
            ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
            RETURNING bucket, hits
            """, logger: logger)
        var counts: [String: Int] = [:]
        for try await (bucket, hits) in rows.decode((String, Int32).self) { counts[bucket] = Int(hits) }
        return counts
    }

    func deleteWindows(before cutoff: Date) async throws {
        try await client.query("DELETE FROM rate_limit_counters WHERE window_start < \(cutoff)", logger: logger)
    }
}
