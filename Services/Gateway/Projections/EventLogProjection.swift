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
        let insert = Insert(
            topics: topics, partitions: partitions, offsets: offsets, ids: ids, types: types, versions: versions, keys: keys,
            correlations: correlations, causations: causations, sources: sources, times: times, envelopes: envelopes)
        for try await _ in try await connection.execute(insert, logger: logger) {}
    }

    /// Every batch of every topic is archived: prepared once per connection (for the few events
    /// of a quiet moment, parsing and planning the insert cost more than running it).
    struct Insert: PreparedStatement {
        static let sql = """
            INSERT INTO event_log (topic, partition, "offset", event_id, type, version, key, correlation_id, causation_id, source, occurred_at, envelope)
            SELECT topic, partition, off, id::uuid, type, version, key, correlation_id, NULLIF(causation_id, ''), source, occurred::timestamptz, envelope::json
            FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[], $5::text[], $6::int[],
                        $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
                 AS v(topic, partition, off, id, type, version, key, correlation_id, causation_id, source, occurred, envelope)
            ON CONFLICT (topic, partition, "offset") DO NOTHING
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .textArray, .int4Array, .int8Array, .textArray, .textArray, .int4Array,
            .textArray, .textArray, .textArray, .textArray, .textArray, .textArray,
        ]
        typealias Row = Void

        var topics: [String], partitions: [Int32], offsets: [Int64], ids: [String], types: [String], versions: [Int32]
        var keys: [String], correlations: [String], causations: [String], sources: [String], times: [String], envelopes: [String]

        var parameters: [any PostgresEncodable] {
            [topics, partitions, offsets, ids, types, versions, keys, correlations, causations, sources, times, envelopes]
        }
    }
}
