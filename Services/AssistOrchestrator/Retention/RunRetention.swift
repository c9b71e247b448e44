import Foundation
import HearthEvents
import HearthPrivacy
import HearthStore
import Logging
import PostgresNIO
import HearthRuntime

/// Ages runs out: a run started longer ago than `HEARTH_RUN_RETENTION_DAYS` has its key destroyed
/// (its goal, streamed events and model errors were sealed with it, in Kafka, the archive and
/// every replay), then `assist.run_expired` tells the read models to drop what they hold of it.
/// Its counts, tokens and costs stay for usage and billing.
///
/// Idempotent like the eraser: a run whose key is gone but whose expiry was not published (a
/// crash between the two) is found again, as long as its row still holds content.
struct RunRetention: Sendable {
    let client: PostgresClient
    let keys: DataKeyRing
    let publisher: EventPublisher
    let maxAge: TimeInterval
    let logger: Logger

    /// Expires what is due every `interval`.
    func service(every interval: Duration) -> PeriodicService {
        PeriodicService("expiring old runs", every: interval, logger: logger) { try await expireDue() }
    }

    /// Expires up to 500 runs past retention; answers how many.
    @discardableResult
    func expireDue() async throws -> Int {
        var due: [UUID] = []
        let rows = try await client.query(
            """
            SELECT run_id FROM agent_runs
            WHERE started_at < now() - make_interval(secs => \(maxAge)) AND NOT content_expired
            ORDER BY started_at LIMIT 500
            """, logger: logger)
        for try await run in rows.decode(UUID.self) { due.append(run) }
        guard !due.isEmpty else { return 0 }
        let destroyed = try await keys.destroy(subjects: due.map(KeySubject.run), because: "retention")
        for run in due {
            try await publisher.publish(AssistRunExpired(runId: run), correlationId: "retention-\(run.uuidString.lowercased())")
        }
        logger.notice("runs past retention expired", metadata: ["runs": "\(due.count)", "keys_destroyed": "\(destroyed)"])
        return due.count
    }
}
