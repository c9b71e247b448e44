import Foundation
import HearthKafka
import Logging
import Metrics
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// Copies parked events from `projection_dead_letters` to `<topic>.dlq`, where `hearthctl dlq`
/// lists and redrives them. The projection never waits for this: a dead-letter topic that is
/// missing, or a message Kafka refuses (too large once the error headers are added), costs the
/// relay a bounded number of attempts, after which the row stays in Postgres alone and
/// `hearth_dlq_unpublished` keeps counting it.
public final class DeadLetterRelay: Service, Sendable {
    private let client: PostgresClient
    private let producer: KafkaProducer
    private let projections: [String]
    private let options: Options
    private let logger: Logger

    public struct Options: Sendable {
        /// How often the table is looked at when nothing was found.
        public var interval: Duration
        /// Publish attempts per parked event before the relay leaves it in Postgres only.
        public var maxAttempts: Int
        /// Longest wait before a row's next attempt (doubles from one second).
        public var maxBackoff: Duration
        /// Rows taken at once; each is sent with the producer's delivery timeout.
        public var batchSize: Int

        public init(interval: Duration = .milliseconds(500), maxAttempts: Int = 8, maxBackoff: Duration = .seconds(300), batchSize: Int = 50) {
            self.interval = interval
            self.maxAttempts = maxAttempts
            self.maxBackoff = maxBackoff
            self.batchSize = batchSize
        }
    }

    /// `projections`: the names this process runs; each relay publishes only its own rows.
    public init(client: PostgresClient, producer: KafkaProducer, projections: [String], options: Options = .init(), logger: Logger) {
        self.client = client
        self.producer = producer
        self.projections = projections
        self.options = options
        self.logger = logger
    }

    public func run() async throws {
        for projection in projections { Gauge(label: "hearth_dlq_unpublished", dimensions: [("projection", projection)]).record(0) }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let published: Int
            do {
                published = try await relayOnce()
            } catch {
                logger.warning("dead-letter relay failed; retrying", metadata: ["error": "\(FailureClassification.describe(error))"])
                published = 0
            }
            await reportBacklog()
            if published == 0 { try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.options.interval) } }
        }
    }

    /// Publishes one batch of due rows; returns how many were published. Rows are locked with
    /// `SKIP LOCKED`, so two instances of a service share the work without sending a row twice.
    @discardableResult
    func relayOnce() async throws -> Int {
        try await client.withTransaction(logger: logger) { connection in
            var due: [(row: Row, message: KafkaOutgoingMessage)] = []
            for try await row in try await connection.query(
                """
                SELECT projection, topic, partition, "offset", key, value, headers::text, error, publish_attempts
                FROM projection_dead_letters
                WHERE published_at IS NULL AND next_attempt_at <= now() AND projection = ANY(\(projections))
                ORDER BY next_attempt_at LIMIT \(options.batchSize)
                FOR UPDATE SKIP LOCKED
                """, logger: logger
            ).decode((String, String, Int32, Int64, ByteBuffer?, ByteBuffer, String, String, Int32).self) {
                let parsed = Row(
                    projection: row.0, topic: row.1, partition: row.2, offset: row.3, key: row.4.map { Array(buffer: $0) },
                    value: Array(buffer: row.5), headersJSON: row.6, error: row.7, attempts: Int(row.8))
                due.append((parsed, parsed.outgoing()))
            }
            guard !due.isEmpty else { return 0 }
            // All handed to librdkafka first, then awaited: one slow delivery does not hold the rest.
            var pending: [Result<KafkaPendingDelivery, any Error>] = []
            for entry in due {
                do { pending.append(.success(try await producer.sendPipelined(entry.message))) } catch { pending.append(.failure(error)) }
            }
            var published = 0
            for (entry, handle) in zip(due, pending) {
                let row = entry.row
                let delivered: Bool
                do {
                    _ = try await handle.get().acknowledged()
                    delivered = true
                } catch {
                    delivered = false
                    try await recordFailure(of: row, error: error, on: connection)
                }
                // Outside the catch above: a failure to record the delivery aborts the round, and
                // the rows go out again next time (the relay is at least once).
                if delivered {
                    try await connection.query(
                        """
                        UPDATE projection_dead_letters SET published_at = now(), publish_attempts = publish_attempts + 1, last_publish_error = NULL
                        WHERE projection = \(row.projection) AND topic = \(row.topic) AND partition = \(row.partition) AND "offset" = \(row.offset)
                        """, logger: logger)
                    published += 1
                }
            }
            return published
        }
    }

    /// Counts a failed publish, and gives the row up after `maxAttempts`.
    private func recordFailure(of row: Row, error: any Error, on connection: PostgresConnection) async throws {
        let attempts = row.attempts + 1
        let givenUp = attempts >= options.maxAttempts
        let wait = givenUp ? nil : min(Duration.seconds(1) * (1 << min(attempts - 1, 20)), options.maxBackoff)
        let reason = String("\(error)".prefix(1000))
        try await connection.query(
            """
            UPDATE projection_dead_letters SET publish_attempts = \(Int32(attempts)), last_publish_error = \(reason),
                next_attempt_at = CASE WHEN \(givenUp) THEN 'infinity'::timestamptz
                                       ELSE now() + make_interval(secs => \(Double(wait?.components.seconds ?? 0))) END
            WHERE projection = \(row.projection) AND topic = \(row.topic) AND partition = \(row.partition) AND "offset" = \(row.offset)
            """, logger: logger)
        let metadata: Logger.Metadata = [
            "projection": "\(row.projection)", "position": "\(row.topic)/\(row.partition)@\(row.offset)",
            "attempts": "\(attempts)", "error": "\(reason)",
        ]
        if givenUp {
            logger.error("a parked event cannot be published to its dead-letter topic; it stays in projection_dead_letters", metadata: metadata)
        } else {
            logger.warning("dead-letter publish failed; will retry", metadata: metadata)
        }
    }

    private func reportBacklog() async {
        do {
            var counts = Dictionary(uniqueKeysWithValues: projections.map { ($0, 0) })
            for try await (projection, count) in try await client.query(
                "SELECT projection, count(*) FROM projection_dead_letters WHERE published_at IS NULL AND projection = ANY(\(projections)) GROUP BY projection",
                logger: logger
            ).decode((String, Int).self) {
                counts[projection] = count
            }
            for (projection, count) in counts { Gauge(label: "hearth_dlq_unpublished", dimensions: [("projection", projection)]).record(count) }
        } catch {
            // The next round reports again; a Postgres outage is /readyz's to report.
        }
    }

    struct Row {
        var projection: String
        var topic: String
        var partition: Int32
        var offset: Int64
        var key: [UInt8]?
        var value: [UInt8]
        var headersJSON: String
        var error: String
        var attempts: Int

        /// The message `hearthctl dlq` reads: the original key, value and headers, and where it
        /// came from and why it was parked.
        func outgoing() -> KafkaOutgoingMessage {
            let headers = ParkedEvents.headers(fromJSON: headersJSON)
            let parked = DeadLetterHeaders(error: error, projection: projection, topic: topic, partition: partition, offset: offset)
            return KafkaOutgoingMessage(topic: "\(topic).dlq", key: key, value: value, headers: headers + parked.kafkaHeaders)
        }
    }
}
