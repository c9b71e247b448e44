import Foundation
import HearthEvents
import HearthKafka
import HearthRuntime
import HearthStore
import Hummingbird
import Logging
import PostgresNIO
import Synchronization

/// `GET /v1/admin/pipeline` and the console's *Pipeline* page: per projection of every service,
/// how far behind the log it is on each partition, how fast it moves, when it last moved, and
/// whether it is stuck; and the events the projections parked, with who redrove them.
struct PipelineReport: ResponseEncodable, Sendable {
    struct PartitionState: Encodable, Sendable {
        let topic: String
        let partition: Int32
        let nextOffset: Int64
        /// Nil when Kafka could not be asked.
        let highWatermark: Int64?
        let lag: Int64?
        let updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case topic, partition
            case nextOffset = "next_offset"
            case highWatermark = "high_watermark"
            case lag
            case updatedAt = "updated_at"
        }
    }

    struct ProjectionState: Encodable, Sendable {
        let projection: String
        let lag: Int64?
        /// Events applied per second since the previous look (nil on the first).
        let eventsPerSecond: Double?
        let lastProgressAt: Date
        /// Behind the log and not moved for `PipelineHealth.stuckAfter`.
        let stuck: Bool
        let partitions: [PartitionState]

        enum CodingKeys: String, CodingKey {
            case projection, lag
            case eventsPerSecond = "events_per_second"
            case lastProgressAt = "last_progress_at"
            case stuck, partitions
        }
    }

    struct Parked: Encodable, Sendable {
        let projection: String
        let topic: String
        let partition: Int32
        let offset: Int64
        @OptionalLowercaseID var eventId: UUID?
        let eventType: String?
        let error: String
        let parkedAt: Date
        /// Its redrive, if an administrator sent it back (once per parked position).
        let redrivenAt: Date?
        @OptionalLowercaseID var redrivenBy: UUID?

        enum CodingKeys: String, CodingKey {
            case projection, topic, partition, offset
            case eventId = "event_id"
            case eventType = "event_type"
            case error
            case parkedAt = "parked_at"
            case redrivenAt = "redriven_at"
            case redrivenBy = "redriven_by"
        }
    }

    let generatedAt: Date
    /// Nil when Kafka answered; else why lags are unknown.
    let kafkaError: String?
    let projections: [ProjectionState]
    let deadLetters: [Parked]

    enum CodingKeys: String, CodingKey {
        case generatedAt = "generated_at"
        case kafkaError = "kafka_error"
        case projections
        case deadLetters = "dead_letters"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encode(kafkaError, forKey: .kafkaError)
        try container.encode(projections, forKey: .projections)
        try container.encode(deadLetters, forKey: .deadLetters)
    }
}

/// Reads the pipeline's state: `projection_offsets` (every service's projections write theirs
/// there), Kafka's high watermarks, and `projection_dead_letters`.
final class PipelineHealth: Sendable {
    let client: PostgresClient
    let kafka: KafkaAdmin
    let logger: Logger

    init(client: PostgresClient, kafka: KafkaAdmin, logger: Logger) {
        self.client = client
        self.kafka = kafka
        self.logger = logger
    }
    /// The previous look, for events per second.
    let previous = Mutex<Sample?>(nil)

    struct Sample {
        let at: ContinuousClock.Instant
        let applied: [String: Int64]
        let rates: [String: Double]
    }

    /// A projection behind the log that has not moved for this long is reported stuck.
    static let stuckAfter: TimeInterval = 60
    static let deadLetterLimit = 200

    func report() async throws -> PipelineReport {
        var rows: [(projection: String, partition: KafkaTopicPartition, next: Int64, updatedAt: Date)] = []
        for try await (projection, topic, partition, next, updatedAt) in try await client.query(
            "SELECT projection, topic, partition, next_offset, updated_at FROM projection_offsets ORDER BY projection, topic, partition",
            logger: logger
        ).decode((String, String, Int32, Int64, Date).self) {
            rows.append((projection, KafkaTopicPartition(topic: topic, partition: partition), next, updatedAt))
        }
        var kafkaError: String?
        var watermarks: [KafkaTopicPartition: KafkaWatermarks] = [:]
        do {
            // Only topics of the catalogue: a row left by a test's or an old projection's topic
            // that no longer exists would fail the whole lookup.
            let known = Set(Topic.all.map(\.name))
            watermarks = try await kafka.watermarks(Array(Set(rows.map(\.partition).filter { known.contains($0.topic) })))
        } catch {
            kafkaError = "\(error)"
        }
        let now = Date()
        let applied = Dictionary(grouping: rows, by: \.projection).mapValues { $0.reduce(0) { $0 + $1.next } }
        let rates = rates(applied: applied)
        let projections = Dictionary(grouping: rows, by: \.projection).sorted { $0.key < $1.key }.map { projection, rows in
            let partitions = rows.map { row in
                let high = watermarks[row.partition]?.high
                return PipelineReport.PartitionState(
                    topic: row.partition.topic, partition: row.partition.partition, nextOffset: row.next, highWatermark: high,
                    lag: high.map { max(0, $0 - row.next) }, updatedAt: row.updatedAt)
            }
            let lags = partitions.compactMap(\.lag)
            let lag: Int64? = lags.count == partitions.count ? lags.reduce(0, +) : nil
            let last = rows.map(\.updatedAt).max() ?? now
            return PipelineReport.ProjectionState(
                projection: projection, lag: lag, eventsPerSecond: rates[projection], lastProgressAt: last,
                stuck: (lag ?? 0) > 0 && now.timeIntervalSince(last) > Self.stuckAfter, partitions: partitions)
        }
        return PipelineReport(generatedAt: now, kafkaError: kafkaError, projections: projections, deadLetters: try await deadLetters())
    }

    /// Applied events per second per projection between the last two looks at least a second
    /// apart; a look sooner than that gets the rates of the last.
    private func rates(applied: [String: Int64]) -> [String: Double] {
        let now = ContinuousClock.now
        return previous.withLock { state in
            guard let earlier = state else {
                state = Sample(at: now, applied: applied, rates: [:])
                return [:]
            }
            let elapsed = earlier.at.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            guard seconds >= 1 else { return earlier.rates }
            var rates: [String: Double] = [:]
            for (name, total) in applied {
                if let before = earlier.applied[name] { rates[name] = Double(max(0, total - before)) / seconds }
            }
            state = Sample(at: now, applied: applied, rates: rates)
            return rates
        }
    }

    private func deadLetters() async throws -> [PipelineReport.Parked] {
        let parked = try await ParkedEvents(client: client, logger: logger).list(limit: Self.deadLetterLimit)
        guard !parked.isEmpty else { return [] }
        let targets = parked.map { AdminActionsProjection.redriveTarget(projection: $0.projection, topic: $0.topic, partition: $0.partition, offset: $0.offset) }
        var redriven: [String: (Date, UUID)] = [:]
        for try await (projection, topic, partition, offset, at, admin) in try await client.query(
            """
            SELECT projection, topic, partition, "offset", sent_at, admin_id FROM admin_redrives
            WHERE sent_at IS NOT NULL AND (projection, topic, partition, "offset") IN (
                SELECT * FROM unnest(\(parked.map(\.projection))::text[], \(parked.map(\.topic))::text[], \(parked.map(\.partition))::int[], \(parked.map(\.offset))::int8[]))
            """, logger: logger
        ).decode((String, String, Int32, Int64, Date, UUID).self) {
            redriven[AdminActionsProjection.redriveTarget(projection: projection, topic: topic, partition: partition, offset: offset)] = (at, admin)
        }
        return zip(parked, targets).map { entry, target in
            PipelineReport.Parked(
                projection: entry.projection, topic: entry.topic, partition: entry.partition, offset: entry.offset, eventId: entry.eventId,
                eventType: entry.eventType, error: entry.error, parkedAt: entry.parkedAt, redrivenAt: redriven[target]?.0,
                redrivenBy: redriven[target]?.1)
        }
    }
}
