public struct KafkaOutgoingMessage: Sendable {
    public var topic: String
    /// Messages with the same key land on the same partition and so keep their order.
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// nil lets librdkafka's default partitioner (consistent_random) hash the key.
    public var partition: Int32?

    public init(topic: String, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = [], partition: Int32? = nil) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
        self.partition = partition
    }

    /// Hearth keys are aggregate ids, i.e. text.
    public init(topic: String, key: String, value: [UInt8], headers: [KafkaHeader] = [], partition: Int32? = nil) {
        self.init(topic: topic, key: Array(key.utf8), value: value, headers: headers, partition: partition)
    }
}
