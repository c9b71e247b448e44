/// The offsets a partition holds: `low` is its first kept message, `high` the offset the next
/// message will get (so `high - low` messages are there).
public struct KafkaWatermarks: Hashable, Sendable {
    public var low: Int64
    public var high: Int64

    public init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }
}
