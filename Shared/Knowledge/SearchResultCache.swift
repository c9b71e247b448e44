import HearthStore
import Metrics

/// Answers of recent searches, valid while the knowledge index has not changed since they were
/// read (a `ReadModelCache` watching the index). The index changes only when the embedding-worker
/// writes `document_chunks`, and every such write announces itself on commit (`ReadModelChanges`).
///
/// The cost of a cached answer is one dictionary lookup instead of an embedding lookup, two
/// candidate queries and a contents query. Staleness is bounded by the delivery of one Postgres
/// notification (well under a millisecond on a healthy connection); without a listening connection
/// nothing is cached.
public final class SearchResultCache: Sendable {
    struct Key: Hashable, Sendable {
        enum Answer: String, Hashable, Sendable { case ranking, hits }
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

    enum Entry: Sendable {
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

    /// Answers per generation of `RecentlyUsed`; 0 turns the cache off.
    public var capacity: Int { answers.capacity }
    private let answers: ReadModelCache<Key, Entry>
    /// Lookups by answer (`hits`: a search's chunks with their contents; `ranking`: documents and
    /// scores only) and result.
    private let lookups: [Key.Answer: (hit: Counter, miss: Counter)] = Dictionary(uniqueKeysWithValues: [Key.Answer.ranking, .hits].map { answer in
        (answer, (
            Counter(label: "hearth_search_result_cache_total", dimensions: [("answer", answer.rawValue), ("result", "hit")]),
            Counter(label: "hearth_search_result_cache_total", dimensions: [("answer", answer.rawValue), ("result", "miss")])))
    })

    /// Queries longer than this are not kept (as in `QueryEmbeddingCache`).
    public static let maximumTextLength = 512

    /// `generation`: the index's; nil: nothing tells this process when it changes, so nothing is cached.
    public init(capacity: Int, generation: ReadModelGeneration?) {
        answers = ReadModelCache(capacity: capacity, watching: generation.map { [$0] })
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
        guard query.text.utf8.count <= Self.maximumTextLength else { return nil }
        return answers.readStamp
    }

    func value(for key: Key) -> Entry? {
        guard capacity > 0, key.text.utf8.count <= Self.maximumTextLength else { return nil }
        let found = answers.value(for: key)
        if let counters = lookups[key.answer] { (found == nil ? counters.miss : counters.hit).increment() }
        return found
    }

    /// Keeps `entry` if the index is still at `readUnder`, the generation its search started with.
    func store(_ entry: Entry, for key: Key, readUnder: UInt64) {
        answers.store(entry, for: key, readUnder: readUnder)
    }

    public var count: Int { answers.count }
}
