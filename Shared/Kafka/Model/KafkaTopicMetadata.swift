public struct KafkaTopicMetadata: Sendable, Hashable {
    public var name: String
    /// Sorted partition ids.
    public var partitions: [Int32]

    public init(name: String, partitions: [Int32]) {
        self.name = name
        self.partitions = partitions
    }
}
