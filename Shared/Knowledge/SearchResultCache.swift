import HearthStore
import Metrics
import Synchronization

/// Answers of recent searches, valid while the knowledge index has not changed since they were
/// read. The index changes only when the embedding-worker writes `document_chunks`, and every such
/// write announces itself on commit (`ReadModelChanges`); `generation` counts what this process
/// heard. An answer is stored with the generation it was read under and served only while that is
/// still the generation, so a search racing a change cannot keep its pre-change answer: either the
/// change is heard before the answer is stored (it is not stored) or after (it is dropped).
///
/// The cost of a cached answer is one dictionary lookup instead of an embedding lookup, two
/// candidate queries and a contents query. Staleness is bounded by the delivery of one Postgres
/// notification (well under a millisecond on a healthy connection); without a listening connection
/// nothing is cached.
public final class SearchResultCache: Sendable {
    struct Key: Hashable {
        enum Answer: String, Hashable { case ranking, hits }
        var answer: Answer
        var model: String
        var text: String
        var scope: SearchScope
        var mode: SearchMode
        var limit: Int
        var kind: String?
        var excludeAllergens: [String]
        var age: Int?

        init(_ answer: Answer, _ query: SearchQuery, model: String) {
            self.answer = answer
            self.model = model
            text = query.text
            scope = query.scope
            mode = query.mode
            limit = query.limit
            kind = query.filters.kind
            excludeAllergens = query.filters.excludeAllergens.sorted()
            age = query.filters.age
        }
    }

    enum Entry {
        case ranking([RankedChunk])
        case hits([SearchHit])

        init?(_ value: some Sendable) {
            switch value {
            case let ranked as [RankedChunk]: self = .ranking(ranked)
            case let hits as [SearchHit]: self = .hits(hits)
            default: return nil
            }
        }

        var value: any Sendable {
            switch self {
            case .ranking(let ranked): ranked
            case .hits(let hits): hits
            }
        }
    }

    private struct Stored {
        /// The generation every entry was read under.
        var generation: UInt64
        var entries: RecentlyUsed<Key, Entry>
    }

    /// Answers per generation of `RecentlyUsed`; 0 turns the cache off.
    public let capacity: Int
    /// Nil: nothing tells this process when the index changes, so nothing is cached.
    let generation: ReadModelGeneration?
    private let stored: Mutex<Stored>
    /// Lookups by answer (`hits`: a search's chunks with their contents; `ranking`: documents and
    /// scores only) and result.
    private let lookups: [Key.Answer: (hit: Counter, miss: Counter)] = Dictionary(uniqueKeysWithValues: [Key.Answer.ranking, .hits].map { answer in
        (answer, (
            Counter(label: "hearth_search_result_cache_total", dimensions: [("answer", answer.rawValue), ("result", "hit")]),
            Counter(label: "hearth_search_result_cache_total", dimensions: [("answer", answer.rawValue), ("result", "miss")])))
    })

    /// Queries longer than this are not kept (as in `QueryEmbeddingCache`).
    public static let maximumTextLength = 512

    public init(capacity: Int, generation: ReadModelGeneration?) {
        self.capacity = generation == nil ? 0 : max(0, capacity)
        self.generation = generation
        stored = Mutex(Stored(generation: 0, entries: RecentlyUsed(capacity: self.capacity)))
    }

    /// `query`'s answer of this kind: the cached one while the index is what it was read from, else
    /// the one `read` finds, kept unless the index changed while it read.
    func answer<Value: Sendable>(_ kind: Key.Answer, to query: SearchQuery, model: String, read: () async throws -> Value) async throws -> Value {
        let key = Key(kind, query, model: model)
        if let cached = value(for: key)?.value as? Value { return cached }
        let generation = readGeneration(for: query)
        let fresh = try await read()
        if let generation, let entry = Entry(fresh) { store(entry, for: key, readUnder: generation) }
        return fresh
    }

    /// The generation a search about to read the index stamps its answer with; nil: do not cache.
    func readGeneration(for query: SearchQuery) -> UInt64? {
        guard capacity > 0, query.text.utf8.count <= Self.maximumTextLength else { return nil }
        return generation?.current
    }

    func value(for key: Key) -> Entry? {
        guard capacity > 0, key.text.utf8.count <= Self.maximumTextLength, let now = generation?.current else { return nil }
        let found: Entry? = stored.withLock { stored in
            guard stored.generation == now else {
                stored.entries.removeAll()
                stored.generation = now
                return nil
            }
            return stored.entries.value(for: key)
        }
        if let counters = lookups[key.answer] { (found == nil ? counters.miss : counters.hit).increment() }
        return found
    }

    /// Keeps `entry` if the index is still at `readUnder`, the generation its search started with.
    func store(_ entry: Entry, for key: Key, readUnder: UInt64) {
        guard let now = generation?.current, now == readUnder else { return }
        stored.withLock { stored in
            if stored.generation != now {
                stored.entries.removeAll()
                stored.generation = now
            }
            stored.entries.insert(entry, for: key)
        }
    }

    public var count: Int {
        stored.withLock { $0.entries.count }
    }
}
