import HearthCtlCommands
import HearthStore
import PostgresNIO

/// A plpgsql BEFORE-row trigger a test installs to make the database misbehave on cue (fail with
/// a chosen SQLSTATE, or slow down) for chosen rows. `drop` removes it, its function and its
/// sequence; call it on every way out, failures included (it is idempotent).
struct TestTrigger: Sendable {
    let name: String
    let table: String
    let sequence: String?
    let client: PostgresClient

    /// `body`: plpgsql statements run before `RETURN NEW`; `sequence`, if given, is created first
    /// (a non-transactional counter: "fail the first two times").
    static func install(
        _ name: String, on table: String, events: String = "INSERT OR UPDATE", sequence: String? = nil, client: PostgresClient, body: String
    ) async throws -> TestTrigger {
        let logger = TestEnvironment.logger
        // The tables it goes on (`households`, `projection_offsets`) exist once the gateway's
        // migrations ran; a test may be the first of the run.
        try await MigrationRunner(client: client, logger: logger).apply(ReadModelCatalogue.migrations(of: .gateway))
        if let sequence { try await client.query(PostgresQuery(unsafeSQL: "CREATE SEQUENCE \(sequence)"), logger: logger) }
        try await client.query(PostgresQuery(unsafeSQL: """
            CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
            \(body)
              RETURN NEW;
            END $$
            """), logger: logger)
        try await client.query(
            PostgresQuery(unsafeSQL: "CREATE TRIGGER \(name) BEFORE \(events) ON \(table) FOR EACH ROW EXECUTE FUNCTION \(name)()"), logger: logger)
        return TestTrigger(name: name, table: table, sequence: sequence, client: client)
    }

    func drop() async throws {
        let logger = TestEnvironment.logger
        try await client.query(PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(name) ON \(table)"), logger: logger)
        try await client.query(PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(name)()"), logger: logger)
        if let sequence { try await client.query(PostgresQuery(unsafeSQL: "DROP SEQUENCE IF EXISTS \(sequence)"), logger: logger) }
    }
}
