public struct KafkaProducerConfiguration: Sendable {
    public var bootstrapServers: String
    public var clientId: String
    /// Batching delay; small because Hearth's writes wait on the acknowledgement.
    public var lingerMs: Int = 2
    /// Raw librdkafka properties, applied last (they override everything above).
    public var additional: [String: String] = [:]

    public init(bootstrapServers: String, clientId: String, lingerMs: Int = 2, additional: [String: String] = [:]) {
        self.bootstrapServers = bootstrapServers
        self.clientId = clientId
        self.lingerMs = lingerMs
        self.additional = additional
    }

    var properties: [String: String] {
        var properties = [
            "bootstrap.servers": bootstrapServers,
            "client.id": clientId,
            // Idempotence keeps retries from duplicating or reordering messages of a partition.
            "enable.idempotence": "true",
            "acks": "all",
            "linger.ms": String(lingerMs),
        ]
        properties.merge(additional) { _, new in new }
        return properties
    }
}
