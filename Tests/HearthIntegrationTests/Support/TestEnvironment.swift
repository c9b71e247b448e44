import Foundation
import HearthStore
import Logging
import PostgresNIO

struct MissingTestEnvironment: Error, CustomStringConvertible {
    let variable: String
    var description: String { "\(variable) is not set: run the integration tests through `make test`, which starts Postgres and the dev broker" }
}

/// What `make test` hands the integration tests: the database, the broker and the built binaries.
/// A test running inside `OwnStack` sees a database and a broker of its own instead.
enum TestEnvironment {
    /// The running test's own database and broker (`OwnStack`); nil: the ones `make test` started.
    @TaskLocal static var stack: TestStack?

    static func require(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { throw MissingTestEnvironment(variable: name) }
        return value
    }

    static func databaseURL() throws -> String {
        if let stack { return stack.databaseURL }
        return try require("HEARTH_DATABASE_URL")
    }

    /// The environment a child process (a service, hearthctl) starts with: the test process's
    /// own, pointed at the running test's database and broker, with `extra` on top.
    static func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if let stack {
            environment["HEARTH_DATABASE_URL"] = stack.databaseURL
            environment["HEARTH_KAFKA_BOOTSTRAP"] = stack.kafkaBootstrap
        }
        return environment.merging(extra) { $1 }
    }

    static func binPath() throws -> URL { URL(fileURLWithPath: try require("HEARTH_BIN_PATH")) }

    static let logger: Logger = {
        var logger = Logger(label: "tests")
        logger.logLevel = .warning
        return logger
    }()

    /// For the test harness's own Postgres clients, which are leased from the moment they start
    /// running: PostgresNIO warns about every lease that comes before `run()` has begun, which
    /// says nothing about the code under test.
    static let clientLogger: Logger = {
        var logger = Logger(label: "tests.postgres")
        logger.logLevel = .error
        return logger
    }()

    /// Runs `body` with a Postgres client that runs for exactly that long.
    static func withPostgres<T: Sendable>(_ body: (PostgresClient) async throws -> T) async throws -> T {
        let configuration = try DatabaseConfiguration(url: databaseURL(), maximumConnections: 4)
        let client = PostgresClient(configuration: configuration.client, backgroundLogger: clientLogger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
