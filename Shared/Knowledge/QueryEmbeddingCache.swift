import HearthStore
import Metrics
import Synchronization

/// Recent query embeddings, so a repeated search ("chicken tacos", the planner's recipe query for
/// the same household) does not run the model again: a MiniLM query costs ~7 ms of CPU, the lookup
/// well under a microsecond. An embedding is a pure function of (model, text), so a hit is exactly
/// what the model would have returned. Memory stays below `2 × capacity` vectors (384 floats ≈
/// 1.5 KB each; see `RecentlyUsed`), every operation is O(1) under one short lock.
public final class QueryEmbeddingCache: Sendable {
    private struct Key: Hashable {
        var model: String
        var text: String
    }

    /// Entries per generation; 0 turns the cache off.
    public let capacity: Int
    private let entries: Mutex<RecentlyUsed<Key, [Float]>>
    private let hits = Counter(label: "hearth_embeddings_query_cache_total", dimensions: [("result", "hit")])
    private let misses = Counter(label: "hearth_embeddings_query_cache_total", dimensions: [("result", "miss")])

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        entries = Mutex(RecentlyUsed(capacity: capacity))
    }

    /// Texts longer than this are not kept: long texts are rarely repeated, and a bound on the key
    /// keeps the cache's memory bounded too.
    public static let maximumTextLength = 512

    public func vector(model: String, text: String) -> [Float]? {
        guard capacity > 0, text.utf8.count <= Self.maximumTextLength else { return nil }
        let found = entries.withLock { $0.value(for: Key(model: model, text: text)) }
        (found == nil ? misses : hits).increment()
        return found
    }

    public func store(_ vector: [Float], model: String, text: String) {
        guard capacity > 0, text.utf8.count <= Self.maximumTextLength else { return }
        entries.withLock { $0.insert(vector, for: Key(model: model, text: text)) }
    }

    public var count: Int {
        entries.withLock { $0.count }
    }
}
