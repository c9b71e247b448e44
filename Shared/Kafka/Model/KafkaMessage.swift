import Foundation

/// A consumed record, copied out of librdkafka's buffers so it outlives the poll that read it.
public struct KafkaMessage: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// Create or log-append time as the broker reports it; nil when the record has none.
    public var timestamp: Date?
    /// The consumer's assignment when the message was polled (`KafkaConsumer.assignmentGeneration`):
    /// a message polled before a partition was revoked and assigned again belongs to the old
    /// assignment, whatever its offset says, and the application can tell it apart.
    public var assignmentGeneration: UInt64 = 0

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8],
        headers: [KafkaHeader] = [], timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    /// The value of the first header named `key`.
    public func header(_ key: String) -> [UInt8]? {
        headers.first { $0.key == key }?.value
    }

    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }
}
