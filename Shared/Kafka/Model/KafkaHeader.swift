/// One record header. Kafka allows repeated keys, so headers are an ordered list, not a map.
public struct KafkaHeader: Sendable, Equatable {
    public var key: String
    public var value: [UInt8]

    public init(key: String, value: [UInt8]) {
        self.key = key
        self.value = value
    }

    public init(key: String, string: String) {
        self.init(key: key, value: Array(string.utf8))
    }

    /// The value decoded as UTF-8, for headers that carry text (ids, types).
    public var stringValue: String? { String(validating: value, as: UTF8.self) }
}
