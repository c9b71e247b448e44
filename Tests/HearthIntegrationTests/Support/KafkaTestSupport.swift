import Foundation
import HearthKafka
import Logging

/// Where the Kafka integration tests find their broker: the devbroker that `make test` starts
/// and announces through HEARTH_KAFKA_BOOTSTRAP. Without it the tests fail instead of skipping,
/// so a broken harness cannot pass as green.
enum KafkaTestEnvironment {
    struct MissingBroker: Error, CustomStringConvertible {
        var description: String {
            "HEARTH_KAFKA_BOOTSTRAP is not set: start a broker first (e.g. `HEARTH_KAFKA_PORT=19092 devbroker &` "
                + "and `export HEARTH_KAFKA_BOOTSTRAP=127.0.0.1:19092`), or run the tests through `make test`"
        }
    }

    static func bootstrap() throws -> String {
        if let stack = TestEnvironment.stack { return stack.kafkaBootstrap }
        guard let value = ProcessInfo.processInfo.environment["HEARTH_KAFKA_BOOTSTRAP"], !value.isEmpty else {
            throw MissingBroker()
        }
        return value
    }

    static let logger: Logger = {
        var logger = Logger(label: "hearth.tests.kafka")
        logger.logLevel = .warning
        return logger
    }()

    /// A unique name, so that tests never see each other's (or an earlier run's) messages.
    static func uniqueName(_ prefix: String) -> String {
        "test.\(prefix).\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Creates a fresh topic with exactly `partitions` partitions and returns its name. Against
    /// the devbroker this goes through its control line (the mock cluster has no CreateTopics,
    /// and auto-created topics always get 4 partitions): never rely on auto-creation in tests.
    static func freshTopic(_ prefix: String = "topic", partitions: Int) async throws -> String {
        let name = uniqueName(prefix)
        try await KafkaAdmin(bootstrapServers: bootstrap(), logger: logger).createTopic(name: name, partitions: partitions)
        return name
    }

    static func producer(clientId: String = "hearth-tests", lingerMs: Double = 2) throws -> KafkaProducer {
        try KafkaProducer(
            configuration: KafkaProducerConfiguration(bootstrapServers: bootstrap(), clientId: clientId, lingerMs: lingerMs),
            logger: logger
        )
    }

    /// Polls `condition` until it holds or `timeout` passes; returns whether it held.
    /// `every` spaces the looks out: a condition read through a rate-limited route must not spend the
    /// route's allowance on polling (60 feed reads a minute are gone in seconds at the default pace).
    static func eventually(
        timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(50), _ condition: @Sendable () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: interval)
        }
        return try await condition()
    }
}
