import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `event_log`: every event of every topic, appended once. The history that outlives Kafka's
/// retention, and what `hearthctl trace` and archive replays read.
public struct EventLogProjection: Projection {
    public let name = "event_log"
    public let topics: [Topic]
    public let tables = ["event_log"]
    public let decodesPayloads = false

    public init(topics: [Topic] = Topic.all) {
        self.topics = topics
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        guard !events.isEmpty else { return }
        var topics: [String] = [], partitions: [Int32] = [], offsets: [Int64] = [], ids: [String] = [], types: [String] = []
        var versions: [Int32] = [], keys: [String] = [], correlations: [String] = [], causations: [String] = []
        var sources: [String] = [], times: [String] = [], envelopes: [String] = []
        for event in events {
            let metadata = event.metadata
            topics.append(event.position.topic)
            partitions.append(event.position.partition)
            offsets.append(event.position.offset)
            ids.append(metadata.id.uuidString)
            types.append(metadata.type)
            versions.append(Int32(metadata.version))
            keys.append(metadata.key)
            correlations.append(metadata.correlationId)
            causations.append(metadata.causationId ?? "")
            sources.append(metadata.source)
            times.append(Timestamp.format(metadata.occurredAt))
            envelopes.append(String(decoding: event.value, as: UTF8.self))
        }
        try await connection.query(
            """
            INSERT INTO event_log (topic, partition, "offset", event_id, type, version, key, correlation_id, causation_id, source, occurred_at, envelope)
            SELECT topic, partition, off, id::uuid, type, version, key, correlation_id, NULLIF(causation_id, ''), source, occurred::timestamptz, envelope::json
            FROM unnest(\(topics)::text[], \(partitions)::int[], \(offsets)::bigint[], \(ids)::text[], \(types)::text[], \(versions)::int[],
                        \(keys)::text[], \(correlations)::text[], \(causations)::text[], \(sources)::text[], \(times)::text[], \(envelopes)::text[])
                 AS v(topic, partition, off, id, type, version, key, correlation_id, causation_id, source, occurred, envelope)
            ON CONFLICT (topic, partition, "offset") DO NOTHING
            """, logger: logger)
    }
}
