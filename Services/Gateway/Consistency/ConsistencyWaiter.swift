import HearthKafka
import HearthStore
import Logging
import PostgresNIO

/// Makes a request wait until projections have applied the event at a given position: for reads
/// that carry a consistency token, and for writes whose very next request depends on them.
struct ConsistencyWaiter: Sendable {
    let client: PostgresClient
    /// The partitions' ends, for tokens that could not have come from a write.
    let admin: KafkaAdmin
    let logger: Logger
    var timeout: Duration = .seconds(5)

    /// True when `position` is at or past its partition's end: no write returned it. Asked only
    /// when the position is not applied yet (one broker round trip).
    func isBeyondEnd(_ position: EventPosition) async throws -> Bool {
        let partition = KafkaTopicPartition(topic: position.topic, partition: Int32(position.partition))
        guard let end = try await admin.watermarks([partition])[partition]?.high else { return false }
        return position.offset >= end
    }

    /// True once every projection in `projections` has applied `position`; false when the timeout
    /// passed first.
    func wait(for position: EventPosition, projections: [String], within limit: Duration? = nil) async throws -> Bool {
        let deadline = ContinuousClock.now + (limit ?? timeout)
        var pause = Duration.milliseconds(1)
        while true {
            if try await applied(position, projections: projections) { return true }
            if ContinuousClock.now + pause > deadline { return false }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    private func applied(_ position: EventPosition, projections: [String]) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT count(*)::bigint FROM projection_offsets
            WHERE projection = ANY(\(projections)) AND topic = \(position.topic) AND partition = \(Int32(position.partition))
              AND next_offset > \(position.offset)
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return count == Int64(Set(projections).count) }
        return false
    }
}
