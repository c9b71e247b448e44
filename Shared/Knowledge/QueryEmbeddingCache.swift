import Metrics
import Synchronization

/// Recent query embeddings, so a repeated search ("chicken tacos", the planner's recipe query for
/// the same household) does not run the model again: a MiniLM query costs ~7 ms of CPU, the lookup
/// well under a microsecond. An embedding is a pure function of (model, text), so a hit is exactly
/// what the model would have returned.
///
/// Two generations instead of a linked LRU: lookups promote from the older generation to the
/// current one, and when the current generation is full the older one is dropped whole. Recently
/// used entries survive, memory stays below `2 × capacity` vectors (384 floats ≈ 1.5 KB each), and
/// every operation is O(1) under one short lock.
public final class QueryEmbeddingCache: Sendable {
    private struct Key: Hashable {
        var model: String
        var text: String
    }

    private struct Generations {
        var current: [Key: [Float]] = [:]
        var previous: [Key: [Float]] = [:]
    }

    /// Entries per generation; 0 turns the cache off.
    public let capacity: Int
    private let generations = Mutex(Generations())
    private let hits = Counter(label: "hearth_embeddings_query_cache_total", dimensions: [("result", "hit")])
    private let misses = Counter(label: "hearth_embeddings_query_cache_total", dimensions: [("result", "miss")])

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Texts longer than this are not kept: long texts are rarely repeated, and a bound on the key
    /// keeps the cache's memory bounded too.
    public static let maximumTextLength = 512

    public func vector(model: String, text: String) -> [Float]? {
        guard capacity > 0, text.utf8.count <= Self.maximumTextLength else { return nil }
        let key = Key(model: model, text: text)
        let found: [Float]? = generations.withLock { state in
            if let vector = state.current[key] { return vector }
            guard let vector = state.previous.removeValue(forKey: key) else { return nil }
            Self.insert(key, vector, into: &state, capacity: capacity)
            return vector
        }
        (found == nil ? misses : hits).increment()
        return found
    }

    public func store(_ vector: [Float], model: String, text: String) {
        guard capacity > 0, text.utf8.count <= Self.maximumTextLength else { return }
        generations.withLock { Self.insert(Key(model: model, text: text), vector, into: &$0, capacity: capacity) }
    }

    public var count: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }

    private static func insert(_ key: Key, _ vector: [Float], into state: inout Generations, capacity: Int) {
        if state.current.count >= capacity, state.current[key] == nil {
            state.previous = state.current
            state.current = [:]
            state.current.reserveCapacity(capacity)
        }
        state.current[key] = vector
    }
}
