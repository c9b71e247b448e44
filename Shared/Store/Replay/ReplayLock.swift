import Logging
import PostgresNIO

/// One replay of a projection at a time, across processes and machines: a session-level advisory
/// lock on the rebuild's own connection, held for the whole rebuild. A second replay fails at once
/// instead of dropping the first's shadow schema. If the process dies, Postgres ends the session
/// and the lock with it.
enum ReplayLock {
    /// How long the swap waits for the live tables' locks before it rolls back and tries again.
    static let swapLockTimeoutMilliseconds = 5_000
    static var swapLockTimeout: Duration { .milliseconds(swapLockTimeoutMilliseconds) }

    static func key(_ projection: String) -> String { "hearth.replay.\(projection)" }

    static func holding<T>(_ projection: String, on connection: PostgresConnection, logger: Logger, _ body: () async throws -> T) async throws -> T {
        do {
            let key = key(projection)
            var locked = false
            for try await granted in try await connection.query("SELECT pg_try_advisory_lock(hashtext(\(key)))", logger: logger).decode(Bool.self) {
                locked = granted
            }
            guard locked else { throw ReplayError.alreadyRunning(projection) }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            // The connection goes back to the pool, which keeps it open: release explicitly.
            _ = try? await connection.query("SELECT pg_advisory_unlock(hashtext(\(key)))", logger: logger)
            return try outcome.get()
        }
    }

    /// Postgres's `lock_not_available` (55P03): `lock_timeout` ran out; or `deadlock_detected`
    /// (40P01): a live runner's batch locked the offset rows in another order and Postgres chose
    /// the swap as the one to roll back. Either way the swap may simply try again.
    static func isLockTimeout(_ error: any Error) -> Bool {
        let state = (FailureClassification.underlying(error) as? PSQLError)?.serverInfo?[.sqlState]
        return state == "55P03" || state == "40P01"
    }
}
