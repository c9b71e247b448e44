import Foundation
import HearthKafka
import Logging
import NIOCore
import PostgresNIO

/// The projections' parked events as `projection_dead_letters` holds them, for the admin console
/// and its JSON twin: every service's projections park into the one table, so one query sees the
/// whole pipeline. (`hearthctl dlq` reads the `.dlq` topics instead, which needs no database.)
public struct ParkedEvents: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// One parked event: where it stood, which projection left it out and why. The event's
    /// content is not part of it.
    public struct Entry: Sendable, Hashable {
        public var projection: String
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        public var eventId: UUID?
        public var eventType: String?
        public var error: String
        public var parkedAt: Date

        /// The event's id and type come from its own headers.
        init(projection: String, topic: String, partition: Int32, offset: Int64, headers: [KafkaHeader], error: String, parkedAt: Date) {
            self.projection = projection
            self.topic = topic
            self.partition = partition
            self.offset = offset
            eventId = ParkedEvents.value(EventHeaders.id, in: headers).flatMap(UUID.init(uuidString:))
            eventType = ParkedEvents.value(EventHeaders.type, in: headers)
            self.error = error
            self.parkedAt = parkedAt
        }
    }

    /// The newest first, `limit` at most.
    public func list(limit: Int) async throws -> [Entry] {
        var entries: [Entry] = []
        for try await (projection, topic, partition, offset, headers, error, parkedAt) in try await client.query(
            """
            SELECT projection, topic, partition, "offset", headers::text, error, parked_at
            FROM projection_dead_letters ORDER BY parked_at DESC, projection, topic, partition, "offset" LIMIT \(limit)
            """, logger: logger
        ).decode((String, String, Int32, Int64, String, String, Date).self) {
            entries.append(Entry(
                projection: projection, topic: topic, partition: partition, offset: offset, headers: Self.headers(fromJSON: headers), error: error,
                parkedAt: parkedAt))
        }
        return entries
    }

    /// The copy a redrive sends back to the event's own topic: its key, value and first headers,
    /// so it lands on the same partition and every projection of the topic sees it again. Nil when
    /// no such parked row exists.
    public func redriveMessage(projection: String, topic: String, partition: Int32, offset: Int64) async throws -> (Entry, KafkaOutgoingMessage)? {
        for try await (key, value, headersJSON, error, parkedAt) in try await client.query(
            """
            SELECT key, value, headers::text, error, parked_at FROM projection_dead_letters
            WHERE projection = \(projection) AND topic = \(topic) AND partition = \(partition) AND "offset" = \(offset)
            """, logger: logger
        ).decode((ByteBuffer?, ByteBuffer, String, String, Date).self) {
            let headers = Self.headers(fromJSON: headersJSON)
            let entry = Entry(projection: projection, topic: topic, partition: partition, offset: offset, headers: headers, error: error, parkedAt: parkedAt)
            let message = KafkaOutgoingMessage(
                topic: topic, key: key.map { Array($0.readableBytesView) }, value: Array(value.readableBytesView),
                headers: DeadLetterHeaders.redriveHeaders(eventHeaders: headers, from: "\(projection):\(topic)/\(partition)@\(offset)"))
            return (entry, message)
        }
        return nil
    }

    static func headers(fromJSON json: String) -> [KafkaHeader] {
        ((try? JSONDecoder().decode([DeadLetterStore.StoredHeader].self, from: Data(json.utf8))) ?? [])
            .map { KafkaHeader(key: $0.key, value: Array($0.value)) }
    }

    static func value(_ name: String, in headers: [KafkaHeader]) -> String? {
        headers.first { $0.key == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }
}
