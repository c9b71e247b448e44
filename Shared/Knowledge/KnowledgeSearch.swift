import Foundation
import Logging
import Metrics
import PostgresNIO

/// Which documents a search looks at.
public enum SearchScope: String, Sendable, CaseIterable {
    case recipes, knowledge, all
}

/// How candidates are found: by meaning (pgvector cosine over the HNSW index), by words
/// (Postgres full text), or both fused by reciprocal rank fusion.
public enum SearchMode: String, Sendable, CaseIterable {
    case hybrid, vector, text
}

/// Filters every candidate query applies in SQL, so a filtered search still fills `k`.
public struct SearchFilters: Sendable, Equatable {
    /// One document kind; nil means any kind the scope allows.
    public var kind: String?
    /// Canonical allergen keys no returned recipe may contain.
    public var excludeAllergens: [String]
    /// Only documents whose age range includes this age (documents without a range match any age).
    public var age: Int?

    public init(kind: String? = nil, excludeAllergens: [String] = [], age: Int? = nil) {
        self.kind = kind
        self.excludeAllergens = excludeAllergens
        self.age = age
    }
}

public struct SearchQuery: Sendable {
    public var text: String
    public var scope: SearchScope
    public var mode: SearchMode
    public var limit: Int
    public var filters: SearchFilters

    public init(text: String, scope: SearchScope = .all, mode: SearchMode = .hybrid, limit: Int = 10, filters: SearchFilters = SearchFilters()) {
        self.text = text
        self.scope = scope
        self.mode = mode
        self.limit = limit
        self.filters = filters
    }

    /// The kinds the scope and the `kind` filter leave.
    var kinds: [String] {
        let allowed: [String] = switch scope {
        case .recipes: [DocumentKind.recipe]
        case .knowledge: DocumentKind.knowledge
        case .all: DocumentKind.all
        }
        guard let kind = filters.kind else { return allowed }
        return allowed.contains(kind) ? [kind] : []
    }
}

/// One document in an answer, represented by its best-matching chunk.
public struct SearchHit: Sendable, Equatable {
    public var chunkId: String
    public var documentId: String
    public var kind: String
    public var title: String
    public var heading: String?
    public var chunkIndex: Int
    public var text: String
    public var ageMin: Int?
    public var ageMax: Int?
    public var allergens: [String]
    public var score: Double

    /// The start of the chunk, whitespace collapsed, cut at a word before `length` characters.
    public func snippet(length: Int = 220) -> String {
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard flat.count > length else { return flat }
        let cut = flat.prefix(length)
        let end = cut.lastIndex(of: " ") ?? cut.endIndex
        return String(cut[..<end]) + "…"
    }
}

/// Searches `document_chunks`. Answers whole documents: each candidate list is collapsed to one
/// entry per document (its best chunk) before fusion, and fetched deep enough to hold `limit`
/// documents whenever that many match.
public struct KnowledgeSearch: Sendable {
    public let client: PostgresClient
    public let provider: any EmbeddingProvider
    public let logger: Logger
    /// Documents each candidate list contributes to the fusion.
    public var candidateDepth: Int
    /// RRF's `k`: larger values flatten the difference between ranks.
    public var rrfK: Double
    /// The text list's weight in the fusion (the vector list's is 1).
    public var textWeight: Double
    /// In hybrid mode, the text list holds only chunks with at least this share of the query's
    /// words: a chunk sharing one common word with a paraphrase is no evidence, and would push
    /// the semantic matches down.
    public var hybridTextCoverage: Double

    public init(
        client: PostgresClient, provider: any EmbeddingProvider, logger: Logger, candidateDepth: Int = 40, rrfK: Double = 60,
        textWeight: Double = 1, hybridTextCoverage: Double = 0.5
    ) {
        self.client = client
        self.provider = provider
        self.logger = logger
        self.candidateDepth = candidateDepth
        self.rrfK = rrfK
        self.textWeight = textWeight
        self.hybridTextCoverage = hybridTextCoverage
    }

    public func search(_ query: SearchQuery) async throws -> [SearchHit] {
        guard query.limit > 0, !query.kinds.isEmpty else { return [] }
        let depth = max(query.limit, candidateDepth)
        switch query.mode {
        case .vector:
            return Array(try await vectorCandidates(query, documents: query.limit).prefix(query.limit))
        case .text:
            return Array(try await textCandidates(query, documents: query.limit).prefix(query.limit))
        case .hybrid:
            async let vector = vectorCandidates(query, documents: depth)
            async let text = textCandidates(query, documents: depth, minimumCoverage: hybridTextCoverage)
            let lists = try await [vector, text]
            var best: [String: SearchHit] = [:]
            for list in lists { for hit in list where best[hit.documentId] == nil { best[hit.documentId] = hit } }
            let fused = ReciprocalRankFusion.fuse(lists.map { $0.map(\.documentId) }, weights: [1, textWeight], k: rrfK)
            return fused.prefix(query.limit).compactMap { entry in
                guard var hit = best[entry.id] else { return nil }
                hit.score = entry.score
                return hit
            }
        }
    }

    /// The query's embedding, timed.
    public func embedQuery(_ text: String) async throws -> [Float] {
        let started = ContinuousClock.now
        guard let vector = try await provider.embed([text]).first else {
            throw EmbeddingProviderError("the embedder returned no vector", retriable: false)
        }
        Timer(label: "hearth_embeddings_query_seconds", dimensions: [("model", provider.model.name)])
            .recordNanoseconds((ContinuousClock.now - started).nanoseconds)
        return vector
    }

    /// Nearest documents by cosine distance (score = cosine similarity). `exact` bypasses the
    /// HNSW index (a sequential scan), for measuring the index's recall.
    public func vectorCandidates(_ query: SearchQuery, documents: Int, exact: Bool = false, embedding: [Float]? = nil) async throws -> [SearchHit] {
        let vector: [Float]
        if let embedding { vector = embedding } else { vector = try await embedQuery(query.text) }
        let literal = vector.pgvectorLiteral
        let model = provider.model.name
        return try await collectDocuments(documents) { chunkLimit in
            try await client.withTransaction(logger: logger) { connection in
                // Iterative scans let the index keep walking when the filters reject what it
                // found first, so a filtered search is not cut short by ef_search.
                try await connection.query("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', \(String(max(Self.minimumEfSearch, min(1000, chunkLimit)))), true)", logger: logger)
                let order: PostgresQuery = exact
                    ? "SELECT * FROM (\(unescaped: Self.columns), (embedding <=> \(literal)::vector)::float8 AS distance FROM document_chunks WHERE \(unescaped: Self.filterSQL(start: 2))) AS c ORDER BY distance + 0, id LIMIT \(chunkLimit)"
                    : "SELECT * FROM (\(unescaped: Self.columns), (embedding <=> \(literal)::vector)::float8 AS distance FROM document_chunks WHERE \(unescaped: Self.filterSQL(start: 2)) ORDER BY embedding <=> \(literal)::vector LIMIT \(chunkLimit)) AS c ORDER BY distance, id"
                var bound = order
                try Self.bindFilters(&bound, query: query, model: model)
                return try await Self.hits(connection.query(bound, logger: logger)) { 1 - $0 }
            }
        }
    }

    /// Chunks matching any of the query's words. The score is mostly coverage (the share of the
    /// query's distinct stemmed words the chunk contains), then `ts_rank` (title words weigh
    /// more) below a tenth of a point to order equal coverage. `minimumCoverage` drops chunks
    /// that contain fewer of the words.
    public func textCandidates(_ query: SearchQuery, documents: Int, minimumCoverage: Double = 0) async throws -> [SearchHit] {
        let model = provider.model.name
        let text = query.text
        return try await collectDocuments(documents) { chunkLimit in
            var sql: PostgresQuery = """
                SELECT * FROM (
                    \(unescaped: Self.columns),
                           (cardinality(ARRAY(SELECT unnest(tsvector_to_array(search_text)) INTERSECT SELECT unnest(q.words)))::float8
                               / greatest(cardinality(q.words), 1)
                            + 0.1 * ts_rank(search_text, q.query) / (1 + ts_rank(search_text, q.query)))::float8 AS distance
                    FROM document_chunks,
                         (SELECT replace(plainto_tsquery('english', \(text))::text, ' & ', ' | ')::tsquery AS query,
                                 tsvector_to_array(to_tsvector('english', \(text))) AS words) AS q
                    WHERE search_text @@ q.query AND \(unescaped: Self.filterSQL(start: 2))) AS c
                WHERE distance >= \(minimumCoverage)
                ORDER BY distance DESC, id LIMIT \(chunkLimit)
                """
            try Self.bindFilters(&sql, query: query, model: model)
            return try await client.withConnection { connection in
                try await Self.hits(connection.query(sql, logger: logger)) { $0 }
            }
        }
    }

    /// The HNSW search list size at least: pgvector's default (40) finds ~96% of the true ten
    /// nearest chunks for the labelled queries, 100 finds >99%, still cheap at this scale.
    public static let minimumEfSearch = 100

    static let columns = "SELECT id, document_id, kind, title, heading, chunk_index, text, age_min, age_max, allergens"

    /// The filters as SQL over parameters `$start...$start+4`: model, kinds, excluded allergens,
    /// has-age, age. Bound by `bindFilters` after the query's own parameters.
    static func filterSQL(start: Int) -> String {
        "model = $M AND kind = ANY($K::text[]) AND NOT (allergens && $A::text[]) AND ($H = false OR ((age_min IS NULL OR age_min <= $G) AND (age_max IS NULL OR age_max >= $G)))"
    }

    /// Replaces the named placeholders of `filterSQL` with the next free parameter numbers and binds them.
    static func bindFilters(_ query: inout PostgresQuery, query search: SearchQuery, model: String) throws {
        var next = query.binds.count + 1
        var sql = query.sql
        for name in ["$M", "$K", "$A", "$H", "$G"] {
            sql = sql.replacingOccurrences(of: name, with: "$\(next)")
            next += 1
        }
        var binds = query.binds
        try binds.append(model, context: .default)
        try binds.append(search.kinds, context: .default)
        try binds.append(search.filters.excludeAllergens, context: .default)
        try binds.append(search.filters.age != nil, context: .default)
        try binds.append(search.filters.age ?? 0, context: .default)
        query = PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    static func hits(_ rows: PostgresRowSequence, score: (Double) -> Double) async throws -> [SearchHit] {
        var hits: [SearchHit] = []
        for try await (id, documentId, kind, title, heading, chunkIndex, text, ageMin, ageMax, allergens, distance)
            in rows.decode((String, String, String, String, String?, Int, String, Int?, Int?, [String], Double).self) {
            hits.append(SearchHit(
                chunkId: id, documentId: documentId, kind: kind, title: title, heading: heading, chunkIndex: chunkIndex, text: text,
                ageMin: ageMin, ageMax: ageMax, allergens: allergens, score: score(distance)))
        }
        return hits
    }

    /// Runs `fetch` with a chunk limit, keeps each document's first (best) chunk, and fetches
    /// again with a larger limit while fewer than `documents` documents came back from a full page.
    func collectDocuments(_ documents: Int, fetch: (Int) async throws -> [SearchHit]) async throws -> [SearchHit] {
        var chunkLimit = max(documents * 4, 32)
        while true {
            let chunks = try await fetch(chunkLimit)
            var seen: Set<String> = []
            let best = chunks.filter { seen.insert($0.documentId).inserted }
            if best.count >= documents || chunks.count < chunkLimit || chunkLimit >= 100_000 {
                return Array(best.prefix(documents))
            }
            chunkLimit *= 4
        }
    }
}
