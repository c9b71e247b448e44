/// A bounded map that keeps what was used recently. Two generations instead of a linked LRU:
/// lookups promote from the older generation to the current one, and when the current generation
/// is full the older one is dropped whole. Recently used entries survive, memory stays below
/// `2 × capacity` entries, and every operation is O(1). Not synchronised: its owner locks.
public struct RecentlyUsed<Key: Hashable, Value> {
    /// Entries per generation; 0 keeps nothing.
    public let capacity: Int
    private var current: [Key: Value] = [:]
    private var previous: [Key: Value] = [:]

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    public var count: Int { current.count + previous.count }

    public mutating func value(for key: Key) -> Value? {
        if let value = current[key] { return value }
        guard let value = previous.removeValue(forKey: key) else { return nil }
        insert(value, for: key)
        return value
    }

    public mutating func insert(_ value: Value, for key: Key) {
        guard capacity > 0 else { return }
        if current.count >= capacity, current[key] == nil {
            previous = current
            current = [:]
            current.reserveCapacity(capacity)
        }
        current[key] = value
    }

    public mutating func removeAll() {
        current = [:]
        previous = [:]
    }
}
