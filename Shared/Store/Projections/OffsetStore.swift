import HearthKafka
import Logging
import PostgresNIO

/// Signals that another consumer advanced a partition's offset since this one last read it
/// (a rebalance in flight); the batch is rolled back and retried from fresh offsets.
struct OffsetConflict: Error {}

/// A batch does not start where the stored offset says this projection stands: the events between
/// were never applied here (the log was truncated or recreated under it, or its offset was lowered
/// by hand). Applying the batch would move the offset past them, so the runner stops instead.
public struct OffsetGap: Error, CustomStringConvertible {
    public let partition: KafkaTopicPartition
    public let expected: Int64
    public let found: Int64

    public var description: String {
        "offset gap in \(partition.topic)/\(partition.partition): the projection stands at \(expected) but the next event delivered is at \(found); "
            + "refusing to move past \(found - expected) events it never applied"
    }
}

/// The `projection_offsets` rows of one projection: the truth about how far it has applied.
struct OffsetStore: Sendable {
    let projection: String
    let logger: Logger

    /// Makes sure rows exist for these partitions and returns their next offsets.
    func load(_ partitions: [KafkaTopicPartition], client: PostgresClient) async throws -> [KafkaTopicPartition: Int64] {
        guard !partitions.isEmpty else { return [:] }
        let topics = partitions.map(\.topic)
        let numbers = partitions.map { Int32($0.partition) }
        try await client.query(
            """
            INSERT INTO projection_offsets (projection, topic, partition, next_offset)
            SELECT \(projection), t, p, 0 FROM unnest(\(topics)::text[], \(numbers)::int[]) AS v(t, p)
            ON CONFLICT DO NOTHING
            """, logger: logger)
        return try await read(partitions, client: client)
    }

    func read(_ partitions: [KafkaTopicPartition], client: PostgresClient) async throws -> [KafkaTopicPartition: Int64] {
        let wanted = Set(partitions)
        var offsets: [KafkaTopicPartition: Int64] = [:]
        for try await (topic, partition, next) in try await client.query(
            "SELECT topic, partition, next_offset FROM projection_offsets WHERE projection = \(projection)", logger: logger
        ).decode((String, Int32, Int64).self) {
            let key = KafkaTopicPartition(topic: topic, partition: partition)
            if wanted.contains(key) { offsets[key] = next }
        }
        return offsets
    }

    /// Moves each partition from `expected` to `next`, inside the caller's transaction. Throws
    /// `OffsetConflict` when a row no longer holds the expected value.
    func advance(_ moves: [KafkaTopicPartition: (expected: Int64, next: Int64)], on connection: PostgresConnection) async throws {
        guard !moves.isEmpty else { return }
        let entries = Array(moves)
        let topics = entries.map(\.key.topic)
        let partitions = entries.map { Int32($0.key.partition) }
        let expected = entries.map(\.value.expected)
        let next = entries.map(\.value.next)
        let rows = try await connection.execute(
            Advance(projection: projection, topics: topics, partitions: partitions, expected: expected, next: next), logger: logger)
        var updated = 0
        for try await _ in rows { updated += 1 }
        if updated != entries.count { throw OffsetConflict() }
    }

    /// Every batch of every projection runs it: prepared once per connection.
    struct Advance: PreparedStatement {
        static let sql = """
            UPDATE projection_offsets o SET next_offset = v.next, updated_at = now()
            FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[]) AS v(topic, partition, expected, next)
            WHERE o.projection = $5 AND o.topic = v.topic AND o.partition = v.partition AND o.next_offset = v.expected
            RETURNING 1
            """
        static let bindingDataTypes: [PostgresDataType] = [.textArray, .int4Array, .int8Array, .int8Array, .text]
        typealias Row = Void

        var projection: String
        var topics: [String]
        var partitions: [Int32]
        var expected: [Int64]
        var next: [Int64]

        var parameters: [any PostgresEncodable] { [topics, partitions, expected, next, projection] }
    }

    /// Sets offsets outright (after a rebuild swaps tables in).
    func overwrite(_ offsets: [KafkaTopicPartition: Int64], on connection: PostgresConnection) async throws {
        for (partition, next) in offsets {
            try await connection.query(
                """
                INSERT INTO projection_offsets (projection, topic, partition, next_offset)
                VALUES (\(projection), \(partition.topic), \(Int32(partition.partition)), \(next))
                ON CONFLICT (projection, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = now()
                """, logger: logger)
        }
    }
}
