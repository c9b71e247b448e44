import ArgumentParser
import Foundation
import HearthRuntime
import HearthStore
import Logging
import PostgresNIO

/// Where the CLI finds Postgres and Kafka: flags, else the same variables the services read.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "Postgres URL (default: $HEARTH_DATABASE_URL or the make-run database).")
    var databaseURL: String = ProcessInfo.processInfo.environment["HEARTH_DATABASE_URL"] ?? ServiceSettings.defaultDatabaseURL

    @Option(name: .customLong("kafka"), help: "Kafka bootstrap servers (default: $HEARTH_KAFKA_BOOTSTRAP or 127.0.0.1:9092).")
    var kafkaBootstrap: String = ProcessInfo.processInfo.environment["HEARTH_KAFKA_BOOTSTRAP"] ?? ServiceSettings.defaultKafkaBootstrap

    /// Runs `body` with a Postgres client that is running for exactly that long.
    func withPostgres<T: Sendable>(logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let configuration = try DatabaseConfiguration(url: databaseURL, maximumConnections: 4)
        let client = PostgresClient(configuration: configuration.client, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

enum CLILogging {
    /// Quiet by default: the CLI's own output is its result; `HEARTH_LOG_LEVEL` turns on more.
    static func logger() -> Logger {
        var logger = Logger(label: "hearthctl")
        logger.logLevel = Logger.Level(rawValue: ProcessInfo.processInfo.environment["HEARTH_LOG_LEVEL"] ?? "error") ?? .error
        return logger
    }
}

/// One line on stderr and a non-zero exit, for errors an operator can act on.
struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
