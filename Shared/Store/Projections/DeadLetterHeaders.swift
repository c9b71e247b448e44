import HearthKafka

/// What `DeadLetterRelay` adds to a parked event on `<topic>.dlq`, after the event's own headers:
/// why it was parked, by which projection, and where it sits on its own topic. `hearthctl dlq`
/// lists and redrives by them, and a replay leaves out the positions they name, so the names are
/// spelled here and nowhere else: a writer and a reader cannot drift apart.
public struct DeadLetterHeaders: Sendable, Equatable {
    /// The projection's last error for the event.
    public var error: String
    /// The projection that parked it.
    public var projection: String
    /// Where the event sits on its original topic.
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(error: String, projection: String, topic: String, partition: Int32, offset: Int64) {
        self.error = error
        self.projection = projection
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// The header names on the wire.
    public enum Name {
        public static let error = "error"
        public static let projection = "failed_projection"
        public static let topic = "original_topic"
        public static let partition = "original_partition"
        public static let offset = "original_offset"
        /// Put by `hearthctl dlq redrive` on the copy it sends back to the original topic:
        /// `<topic>.dlq@<offset>`, the parked message it came from.
        public static let redrivenFrom = "redriven_from"
    }

    /// Every header the relay adds. A redrive strips them, so the event goes back with the
    /// headers it was first published with (and one of its own).
    public static let names: Set<String> = [Name.error, Name.projection, Name.topic, Name.partition, Name.offset]

    /// Reads the headers of a message on a dead-letter topic. Nil when one is missing or a
    /// position is not a number: the relay did not write that message.
    public init?(headers: [KafkaHeader]) {
        // The first of a name, as `KafkaMessage.header` reads it: the relay's come after the
        // event's own, and a redrive strips them, so an event parked again carries one set.
        func value(_ name: String) -> String? {
            headers.first { $0.key == name }.map { String(decoding: $0.value, as: UTF8.self) }
        }
        guard let error = value(Name.error), let projection = value(Name.projection), let topic = value(Name.topic),
              let partition = value(Name.partition).flatMap(Int32.init), let offset = value(Name.offset).flatMap(Int64.init)
        else { return nil }
        self.init(error: error, projection: projection, topic: topic, partition: partition, offset: offset)
    }

    /// The headers in the order the relay appends them.
    public var kafkaHeaders: [KafkaHeader] {
        [
            KafkaHeader(key: Name.error, string: error),
            KafkaHeader(key: Name.projection, string: projection),
            KafkaHeader(key: Name.topic, string: topic),
            KafkaHeader(key: Name.partition, string: String(partition)),
            KafkaHeader(key: Name.offset, string: String(offset)),
        ]
    }

    /// The headers of the copy of `parked` (a message read from a dead-letter topic) that a
    /// redrive sends back: the event's own, and which parked message it is.
    public static func redriveHeaders(of parked: KafkaMessage) -> [KafkaHeader] {
        redriveHeaders(eventHeaders: parked.headers, from: "\(parked.topic)@\(parked.offset)")
    }

    /// The headers of a redriven copy: the event's own (less any the relay added) and `from`,
    /// the parked record it came from (a `.dlq` position, or a projection's parked row).
    public static func redriveHeaders(eventHeaders: [KafkaHeader], from: String) -> [KafkaHeader] {
        eventHeaders.filter { !names.contains($0.key) && $0.key != Name.redrivenFrom } + [KafkaHeader(key: Name.redrivenFrom, string: from)]
    }
}
