/// Where an event sits in Kafka. Its text form `topic:partition:offset` is the consistency token a
/// client sends back to read its own write.
public struct EventPosition: Sendable, Hashable, CustomStringConvertible, Codable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    public var description: String { "\(topic):\(partition):\(offset)" }

    /// Parses `topic:partition:offset`; topic names may contain dots but not colons.
    public init?(token: String) {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty,
              let partition = Int32(parts[1]), partition >= 0,
              let offset = Int64(parts[2]), offset >= 0
        else { return nil }
        self.init(topic: String(parts[0]), partition: partition, offset: offset)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let position = EventPosition(token: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a position: \(text)"))
        }
        self = position
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
