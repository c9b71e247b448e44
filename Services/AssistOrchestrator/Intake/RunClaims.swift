import Foundation
import HearthStore
import Logging
import PostgresNIO

/// Who runs which request (`assist_run_claims`). Kafka delivers a request at least once; the
/// insert that wins decides that exactly one run happens, whichever orchestrator instance sees
/// it and however often.
struct RunClaims: Sendable {
    let client: PostgresClient
    /// This process, so an operator can tell whose runs were cut short by a crash.
    let instance: String
    let logger: Logger

    /// True when this call claimed the run; false when someone already had.
    ///
    /// The claim sits on every run's critical path, so its commit does not wait for the WAL
    /// flush (`synchronous_commit` off for this one statement: a fsync on a busy disk costs
    /// milliseconds). A Postgres crash can then lose a claim made in the last fraction of a
    /// second; the run would be repeated only if the request is also redelivered — a rare
    /// duplicate plan, never a lost one.
    func claim(runId: UUID, userId: UUID) async throws -> Bool {
        for try await _ in try await client.execute(Claim(runId: runId, userId: userId, instance: instance), logger: logger) { return true }
        return false
    }

    func markFinished(runId: UUID) async throws {
        for try await _ in try await client.execute(Finish(runId: runId), logger: logger) {}
    }

    /// On the critical path of every run: prepared once per connection.
    struct Claim: PreparedStatement {
        static let sql = """
            WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
            INSERT INTO assist_run_claims (run_id, user_id, claimed_by)
            SELECT $1, $2, $3 FROM relaxed
            ON CONFLICT (run_id) DO NOTHING
            RETURNING run_id
            """
        static let bindingDataTypes: [PostgresDataType] = [.uuid, .uuid, .text]
        typealias Row = UUID

        var runId: UUID
        var userId: UUID
        var instance: String

        var parameters: [any PostgresEncodable] { [runId, userId, instance] }
    }

    struct Finish: PreparedStatement {
        static let sql = "UPDATE assist_run_claims SET finished_at = now() WHERE run_id = $1"
        static let bindingDataTypes: [PostgresDataType] = [.uuid]
        typealias Row = Void

        var runId: UUID

        var parameters: [any PostgresEncodable] { [runId] }
    }
}
