import ArgumentParser
import Foundation
import HearthConfiguration
import HearthKafka
import HearthPrivacy
import HearthRuntime
import HearthStore
import Logging
import PostgresNIO

/// Where the CLI finds Postgres and Kafka: flags, else the same variables the services read.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "Postgres URL (default: $HEARTH_DATABASE_URL or the make-run database).")
    var databaseURL: String = EnvironmentReader().string("HEARTH_DATABASE_URL", default: ServiceSettings.defaultDatabaseURL)

    @Option(name: .customLong("kafka"), help: "Kafka bootstrap servers (default: $HEARTH_KAFKA_BOOTSTRAP or 127.0.0.1:9092).")
    var kafkaBootstrap: String = EnvironmentReader().string("HEARTH_KAFKA_BOOTSTRAP", default: ServiceSettings.defaultKafkaBootstrap)

    /// The services' envelope writer over a producer of the CLI's own; events say `source: hearthctl`.
    /// With `keys`, personal fields are sealed as the services seal them.
    func publisher(clientId: String, keys: DataKeyRing?) throws -> EventPublisher {
        EventPublisher(
            producer: try KafkaProducer(
                configuration: KafkaProducerConfiguration(bootstrapServers: kafkaBootstrap, clientId: clientId), logger: CLILogging.logger()),
            source: "hearthctl", keys: keys)
    }

    /// The data keys, under the master key the services use: `HEARTH_MASTER_KEY`, else the one
    /// `make run` generated under `$HEARTH_RUN_DIR`. The CLI never makes a master key of its own:
    /// keys it wrapped would open nowhere else.
    func keys(client: PostgresClient, logger: Logger) throws -> DataKeyRing {
        let environment = EnvironmentReader()
        let runDirectory = environment.string("HEARTH_RUN_DIR", default: ".run")
        let generatedExists = FileManager.default.fileExists(atPath: URL(fileURLWithPath: runDirectory).appendingPathComponent("master.key").path)
        guard environment.trimmed("HEARTH_MASTER_KEY") != nil || generatedExists else {
            throw CLIFailure("set HEARTH_MASTER_KEY (the services' master key), or HEARTH_RUN_DIR to the run directory of make run")
        }
        let master = try MasterKey.load(environment: environment, runDirectory: runDirectory, allowGenerated: true)
        // History only: a key named by an archived event and not in the store is gone.
        return DataKeyRing(client: client, wrapping: master, logger: logger, unknownKeyPatience: .zero)
    }

    /// Runs `body` with a Postgres client that is running for exactly that long.
    func withPostgres<T: Sendable>(logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let configuration = try DatabaseConfiguration(url: databaseURL, maximumConnections: 4)
        let client = PostgresClient(configuration: configuration.client, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await Self.reach(configuration, logger: logger)
            return try await body(client)
        }
    }

    /// The client waits for Postgres as long as it takes, which suits a service riding out a
    /// restart; a command run by hand should say at once that it cannot reach it, and why.
    private static func reach(_ configuration: DatabaseConfiguration, logger: Logger) async throws {
        do {
            let connection = try await PostgresConnection.connect(configuration: try configuration.connection, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw CLIFailure("cannot reach Postgres at \(configuration.redacted): \(FailureClassification.describe(error))")
        }
    }
}

enum CLILogging {
    /// Quiet by default: the CLI's own output is its result, and an error that stops a command
    /// is its one last line. The clients' own complaints on the way there (librdkafka's
    /// connection failures, say) come out with `HEARTH_LOG_LEVEL=error` or lower.
    static func logger() -> Logger {
        var logger = Logger(label: "hearthctl")
        logger.logLevel = Logger.Level(rawValue: EnvironmentReader().string("HEARTH_LOG_LEVEL", default: "critical")) ?? .critical
        return logger
    }
}

/// One line on stderr and a non-zero exit, for errors an operator can act on.
struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
