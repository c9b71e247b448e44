import Synchronization

/// Values read from read models, kept while none of those read models has changed since they were
/// read. Each watched read model announces its commits (`ReadModelChanges`) and this process counts
/// what it heard (`ReadModelGeneration`). A value is stored with the stamp it was read under and
/// served only while the stamp is still current, so a read racing a change cannot keep its
/// pre-change value: either the change is heard before the value is stored (it is not stored) or
/// after (it is dropped with everything else).
///
/// Every change of a watched read model empties the cache: the cost of a change is one re-read per
/// key in use, and the cache needs to know nothing of which rows a value came from. Staleness is
/// bounded by the delivery of one Postgres notification; without a listening connection nothing is
/// cached.
public final class ReadModelCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Stored {
        /// The stamp every entry was read under.
        var stamp: UInt64
        var entries: RecentlyUsed<Key, Value>

        /// Moves to stamp `now`, forgetting the entries read under another. True: they were kept.
        @discardableResult
        mutating func keepsEntries(at now: UInt64) -> Bool {
            guard stamp != now else { return true }
            entries.removeAll()
            stamp = now
            return false
        }
    }

    /// Entries per generation of `RecentlyUsed`; 0 turns the cache off.
    public let capacity: Int
    private let watched: [ReadModelGeneration]
    private let stored: Mutex<Stored>

    /// `watched` nil or empty: nothing tells this process when the values change, so nothing is cached.
    public init(capacity: Int, watching watched: [ReadModelGeneration]?) {
        let watched = watched ?? []
        self.capacity = watched.isEmpty ? 0 : max(0, capacity)
        self.watched = watched
        stored = Mutex(Stored(stamp: 0, entries: RecentlyUsed(capacity: self.capacity)))
    }

    /// The stamp a read about to start should store its value under; nil: do not cache. Every
    /// generation only grows, so their sum moves exactly when one of them moves.
    public var readStamp: UInt64? {
        guard capacity > 0 else { return nil }
        var sum: UInt64 = 0
        for generation in watched {
            guard let current = generation.current else { return nil }
            sum &+= current
        }
        return sum
    }

    /// The value stored for `key`, if nothing watched changed since it was read.
    public func value(for key: Key) -> Value? {
        guard let now = readStamp else { return nil }
        return stored.withLock { stored in stored.keepsEntries(at: now) ? stored.entries.value(for: key) : nil }
    }

    /// Keeps `value` if nothing watched changed since `readUnder`, the stamp its read started with.
    public func store(_ value: Value, for key: Key, readUnder: UInt64) {
        guard let now = readStamp, now == readUnder else { return }
        stored.withLock { stored in
            stored.keepsEntries(at: now)
            stored.entries.insert(value, for: key)
        }
    }

    public var count: Int {
        stored.withLock { $0.entries.count }
    }
}
