public struct KafkaConsumerConfiguration: Sendable {
    public var bootstrapServers: String
    public var groupId: String
    public var topics: [String]
    public var clientId: String
    /// The librdkafka mock broker never answers the first JoinGroup below ~4000.
    public var sessionTimeoutMs: Int = 6000
    public var heartbeatIntervalMs: Int = 500
    /// Where a partition without a committed (or `onAssign`-supplied) offset starts.
    public var autoOffsetReset: String = "earliest"
    /// Messages, and bytes of keys, values and headers, read ahead of the iterating task: at
    /// either bound the consumer pauses fetching (and keeps polling) until half is read.
    public var maxBufferedMessages: Int = 10_000
    public var maxBufferedBytes: Int = 32 << 20
    /// How often the offsets recorded with `KafkaConsumer.storeOffsets` are committed to the group.
    public var commitIntervalMs: Int = 1000
    /// Raw librdkafka properties, applied last (they override everything above).
    public var additional: [String: String] = [:]

    public init(
        bootstrapServers: String, groupId: String, topics: [String], clientId: String,
        sessionTimeoutMs: Int = 6000, heartbeatIntervalMs: Int = 500, autoOffsetReset: String = "earliest",
        maxBufferedMessages: Int = 10_000, maxBufferedBytes: Int = 32 << 20, additional: [String: String] = [:]
    ) {
        self.bootstrapServers = bootstrapServers
        self.groupId = groupId
        self.topics = topics
        self.clientId = clientId
        self.sessionTimeoutMs = sessionTimeoutMs
        self.heartbeatIntervalMs = heartbeatIntervalMs
        self.autoOffsetReset = autoOffsetReset
        self.maxBufferedMessages = maxBufferedMessages
        self.maxBufferedBytes = maxBufferedBytes
        self.additional = additional
    }

    var properties: [String: String] {
        var properties = [
            "bootstrap.servers": bootstrapServers,
            "group.id": groupId,
            "client.id": clientId,
            "session.timeout.ms": String(sessionTimeoutMs),
            "heartbeat.interval.ms": String(heartbeatIntervalMs),
            "auto.offset.reset": autoOffsetReset,
            // Hearth keeps the real offsets next to the read models; Kafka's commits are only
            // for lag visibility: of the offsets recorded through `storeOffsets(_:)`, periodically.
            "enable.auto.commit": "true",
            "auto.commit.interval.ms": String(commitIntervalMs),
            "enable.auto.offset.store": "false",
            "enable.partition.eof": "false",
        ]
        properties.merge(additional) { _, new in new }
        return properties
    }
}
