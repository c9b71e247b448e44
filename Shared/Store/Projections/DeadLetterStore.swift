import Foundation
import HearthKafka
import Logging
import NIOCore
import PostgresNIO

/// The `projection_dead_letters` rows: events a projection parked, written in the same
/// transaction that moves its offset past them, so parking and skipping cannot come apart (a
/// crash between them used to park twice or lose the event). `DeadLetterRelay` copies each row to
/// `<topic>.dlq` for the operator's tools; the row stays as the projection's record of what it
/// left out, which a replay reads to leave out the same events.
struct DeadLetterStore: Sendable {
    let projection: String
    let logger: Logger

    /// Original headers are kept as JSON (key, base64 value): few, small, and read back whole.
    struct StoredHeader: Codable {
        var key: String
        var value: Data
    }

    /// Records a parked message, inside the caller's transaction. Parking one position twice
    /// (a retried transaction whose first commit's answer was lost) keeps the first record.
    func park(_ message: KafkaMessage, reason: String, on connection: PostgresConnection) async throws {
        let headers = String(decoding: try JSONEncoder().encode(message.headers.map { StoredHeader(key: $0.key, value: Data($0.value)) }), as: UTF8.self)
        let key = message.key.map { ByteBuffer(bytes: $0) }
        try await connection.query(
            """
            INSERT INTO projection_dead_letters (projection, topic, partition, "offset", key, value, headers, error)
            VALUES (\(projection), \(message.topic), \(Int32(message.partition)), \(message.offset), \(key), \(ByteBuffer(bytes: message.value)),
                    \(headers)::jsonb, \(String(reason.prefix(1000))))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Every position this projection parked.
    static func parkedPositions(of projection: String, on connection: PostgresConnection, logger: Logger) async throws -> Set<EventPosition> {
        var parked = Set<EventPosition>()
        for try await (topic, partition, offset) in try await connection.query(
            #"SELECT topic, partition, "offset" FROM public.projection_dead_letters WHERE projection = \#(projection)"#, logger: logger
        ).decode((String, Int32, Int64).self) {
            parked.insert(EventPosition(topic: topic, partition: partition, offset: offset))
        }
        return parked
    }

    static let tableSQL = """
        CREATE TABLE IF NOT EXISTS projection_dead_letters (
            projection text NOT NULL,
            topic text NOT NULL,
            partition integer NOT NULL,
            "offset" bigint NOT NULL,
            key bytea,
            value bytea NOT NULL,
            headers jsonb NOT NULL,
            error text NOT NULL,
            parked_at timestamptz NOT NULL DEFAULT now(),
            published_at timestamptz,
            publish_attempts integer NOT NULL DEFAULT 0,
            last_publish_error text,
            next_attempt_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (projection, topic, partition, "offset")
        )
        """
    static let indexSQL = """
        CREATE INDEX IF NOT EXISTS projection_dead_letters_unpublished
            ON projection_dead_letters (next_attempt_at) WHERE published_at IS NULL
        """
}
