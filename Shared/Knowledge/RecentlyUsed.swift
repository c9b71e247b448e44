/// A bounded map that keeps what was used recently. Two generations instead of a linked LRU:
/// lookups promote from the older generation to the current one, and when the current generation
/// is full the older one is dropped whole. Recently used entries survive, memory stays below
/// `2 × capacity` entries, and every operation is O(1). Not synchronised: its owner locks.
struct RecentlyUsed<Key: Hashable, Value> {
    /// Entries per generation; 0 keeps nothing.
    let capacity: Int
    private var current: [Key: Value] = [:]
    private var previous: [Key: Value] = [:]

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { current.count + previous.count }

    mutating func value(for key: Key) -> Value? {
        if let value = current[key] { return value }
        guard let value = previous.removeValue(forKey: key) else { return nil }
        insert(value, for: key)
        return value
    }

    mutating func insert(_ value: Value, for key: Key) {
        guard capacity > 0 else { return }
        if current.count >= capacity, current[key] == nil {
            previous = current
            current = [:]
            current.reserveCapacity(capacity)
        }
        current[key] = value
    }

    mutating func removeAll() {
        current = [:]
        previous = [:]
    }
}
