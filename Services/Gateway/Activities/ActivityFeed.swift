import Foundation
import HearthEvents
import HearthStore
import Logging
import Metrics
import PostgresNIO

/// `GET /v1/activities/feed`, answered from memory: the encoded answer of each query is kept
/// until the `activities` read model announces a change (a publication, withdrawal or approval),
/// so the hottest read of the seed costs a dictionary lookup and, for a client that has it, an
/// ETag comparison. All queries share one read of the table per change.
final class ActivityFeed: Sendable {
    private let client: PostgresClient
    private let logger: Logger
    private let rows: ReadModelCache<Int, [ActivityRow]>
    private let answers: ReadModelCache<ActivityFeedQuery, ActivityFeedAnswer>
    private let hits = Counter(label: "hearth_activity_feed_cache_total", dimensions: [("result", "hit")])
    private let misses = Counter(label: "hearth_activity_feed_cache_total", dimensions: [("result", "miss")])

    /// `changes` nil: nothing tells this process of changes, so every read goes to Postgres.
    init(client: PostgresClient, changes: ReadModelChangeFeed?, capacity: Int, logger: Logger) {
        self.client = client
        self.logger = logger
        let watched = changes.map { [$0.generation(of: ActivitiesProjection().name)] }
        rows = ReadModelCache(capacity: 1, watching: watched)
        answers = ReadModelCache(capacity: capacity, watching: watched)
    }

    /// The answer to `query`; `bypassing` the cache for a read that waited for a write.
    func answer(_ query: ActivityFeedQuery, bypassing: Bool) async throws -> ActivityFeedAnswer {
        if !bypassing, let cached = answers.value(for: query) {
            hits.increment()
            return cached
        }
        misses.increment()
        let stamp = answers.readStamp
        let answer = try ActivityFeedAnswer.make(rows: try await allRows(bypassing: bypassing), query: query)
        if let stamp { answers.store(answer, for: query, readUnder: stamp) }
        return answer
    }

    /// Every row of the feed, tombstones included (a few hundred).
    func allRows(bypassing: Bool) async throws -> [ActivityRow] {
        if !bypassing, let cached = rows.value(for: 0) { return cached }
        let stamp = rows.readStamp
        var read: [ActivityRow] = []
        let result = try await client.query(
            """
            SELECT activity_id, source, title, description, time_minutes, energy, contexts, category, min_age, max_age, repeatability,
                   withdrawn, revision
            FROM activities
            """, logger: logger)
        for try await (id, source, title, description, time, energy, contexts, category, minAge, maxAge, repeatability, withdrawn, revision)
            in result.decode((String, String, String, String, Int, String, [String], String, Int, Int, String, Bool, Int64).self)
        {
            read.append(ActivityRow(
                id: id, source: source,
                content: ActivityContent(
                    title: title, description: description, timeMinutes: time, energy: energy, contexts: contexts, category: category, minAge: minAge,
                    maxAge: maxAge, repeatability: repeatability),
                withdrawn: withdrawn, revision: revision))
        }
        if let stamp { rows.store(read, for: 0, readUnder: stamp) }
        return read
    }
}
