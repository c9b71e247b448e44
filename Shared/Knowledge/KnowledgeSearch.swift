import Foundation
import HearthStore
import Logging
import Metrics
import PostgresNIO

/// Which documents a search looks at.
public enum SearchScope: String, Sendable, CaseIterable {
    case recipes, knowledge, all
}

/// How candidates are found: by meaning (cosine, over the resident index or pgvector's HNSW), by words
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

/// A candidate chunk before its contents are read.
struct RankedChunk: Sendable, Equatable {
    var chunkId: String
    var documentId: String
    var score: Double
}

/// A document of an answer and its score, without its contents.
public struct RankedDocument: Sendable, Equatable {
    public var documentId: String
    public var score: Double
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
        // Reads only as far as the cut, by Unicode scalars (an ASCII one needs no property lookup:
        // `Character.isWhitespace` over a whole answer was ~2% of a search's CPU). Characters are
        // counted now and then: a character has at least one scalar, so a prefix with more than
        // `length` characters is long enough.
        var flat = String.UnicodeScalarView()
        var scalars = 0
        var nextCount = length + 1
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let isWhitespace = scalar.isASCII
                ? scalar == " " || (scalar.value >= 0x09 && scalar.value <= 0x0D)
                : scalar.properties.isWhitespace
            if isWhitespace {
                pendingSpace = scalars > 0
                continue
            }
            if pendingSpace {
                flat.append(" ")
                scalars += 1
                pendingSpace = false
            }
            flat.append(scalar)
            scalars += 1
            if scalars >= nextCount {
                if String(flat).count > length { break }
                nextCount = scalars + 32
            }
        }
        let whole = String(flat)
        guard whole.count > length else { return whole }
        let cut = whole.prefix(length)
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
    /// Query embeddings already computed (`HEARTH_QUERY_EMBEDDING_CACHE` entries; 0 turns it off).
    public let queryEmbeddings: QueryEmbeddingCache
    /// Recent answers, valid until the index changes (`HEARTH_SEARCH_RESULT_CACHE` entries).
    public let results: SearchResultCache
    /// The index in memory while it is small and unchanged (`HEARTH_SEARCH_RESIDENT_CHUNKS`): vector
    /// rankings and chunk contents then need no round trip.
    public let resident: ResidentChunkIndex

    public init(
        client: PostgresClient, provider: any EmbeddingProvider, logger: Logger, candidateDepth: Int = 40, rrfK: Double = 60,
        textWeight: Double = 1, hybridTextCoverage: Double = 0.5, queryEmbeddings: QueryEmbeddingCache = QueryEmbeddingCache(capacity: 0),
        results: SearchResultCache = SearchResultCache(capacity: 0, generation: nil),
        resident: ResidentChunkIndex = ResidentChunkIndex(maximumChunks: 0, generation: nil)
    ) {
        self.client = client
        self.provider = provider
        self.logger = logger
        self.queryEmbeddings = queryEmbeddings
        self.results = results
        self.resident = resident
        self.candidateDepth = candidateDepth
        self.rrfK = rrfK
        self.textWeight = textWeight
        self.hybridTextCoverage = hybridTextCoverage
    }

    public func search(_ query: SearchQuery) async throws -> [SearchHit] {
        try await results.answer(.hits, to: query, model: provider.model.name) { try await details(of: ranking(query)) }
    }

    /// The documents `search` answers, in its order and with its scores, without reading their
    /// chunks: for a caller that needs only which documents matched (the meal planner looks its
    /// recipes up in the catalogue), one round trip to Postgres fewer.
    public func rankedDocuments(_ query: SearchQuery) async throws -> [RankedDocument] {
        try await ranking(query).map { RankedDocument(documentId: $0.documentId, score: $0.score) }
    }

    func ranking(_ query: SearchQuery) async throws -> [RankedChunk] {
        try await results.answer(.ranking, to: query, model: provider.model.name) { try await rankingFromIndex(query) }
    }

    private func rankingFromIndex(_ query: SearchQuery) async throws -> [RankedChunk] {
        guard query.limit > 0, !query.kinds.isEmpty else { return [] }
        let depth = max(query.limit, candidateDepth)
        switch query.mode {
        case .vector:
            return try await vectorRanking(query, documents: query.limit)
        case .text:
            return try await textRanking(query, documents: query.limit)
        case .hybrid:
            async let vector = vectorRanking(query, documents: depth)
            async let text = textRanking(query, documents: depth, minimumCoverage: hybridTextCoverage)
            let lists = try await [vector, text]
            var best: [String: RankedChunk] = [:]
            for list in lists { for chunk in list where best[chunk.documentId] == nil { best[chunk.documentId] = chunk } }
            let fused = ReciprocalRankFusion.fuse(lists.map { $0.map(\.documentId) }, weights: [1, textWeight], k: rrfK)
            return fused.prefix(query.limit).compactMap { entry -> RankedChunk? in
                guard var chunk = best[entry.id] else { return nil }
                chunk.score = entry.score
                return chunk
            }
        }
    }

    /// The query's embedding: from `queryEmbeddings` when this text was embedded recently, else
    /// from the model (timed).
    public func embedQuery(_ text: String) async throws -> [Float] {
        let model = provider.model.name
        if let cached = queryEmbeddings.vector(model: model, text: text) { return cached }
        let started = ContinuousClock.now
        guard let vector = try await provider.embed([text]).first else {
            throw EmbeddingProviderError("the embedder returned no vector", retriable: false)
        }
        Timer(label: "hearth_embeddings_query_seconds", dimensions: [("model", model)])
            .recordNanoseconds((ContinuousClock.now - started).nanoseconds)
        queryEmbeddings.store(vector, model: model, text: text)
        return vector
    }

    /// Nearest documents by cosine distance (score = cosine similarity): an exact scan of the
    /// resident index when there is one, else pgvector's HNSW index. `exact` makes Postgres scan
    /// the table instead (for measuring the index's recall).
    public func vectorCandidates(_ query: SearchQuery, documents: Int, exact: Bool = false, embedding: [Float]? = nil) async throws -> [SearchHit] {
        try await details(of: vectorRanking(query, documents: documents, exact: exact, embedding: embedding))
    }

    /// `vectorCandidates` without the chunks' contents: ids and scores only.
    func vectorRanking(_ query: SearchQuery, documents: Int, exact: Bool = false, embedding: [Float]? = nil) async throws -> [RankedChunk] {
        let vector: [Float]
        if let embedding { vector = embedding } else { vector = try await embedQuery(query.text) }
        let model = provider.model.name
        if !exact, let chunks = await resident.snapshot(model: model, client: client, logger: logger) {
            return chunks.nearestDocuments(to: vector, kinds: query.kinds, filters: query.filters, documents: documents)
        }
        return try await collectDocuments(documents) { chunkLimit in
            // The vector is bound as a binary float4[]: no text to format here or to parse in Postgres.
            var sql: PostgresQuery = exact
                ? "SELECT * FROM (\(unescaped: Self.rankColumns), (embedding <=> \(vector)::real[]::vector)::float8 AS distance FROM document_chunks WHERE \(unescaped: Self.filterSQL)) AS c ORDER BY distance + 0, id LIMIT \(chunkLimit)"
                : "SELECT * FROM (\(unescaped: Self.rankColumns), (embedding <=> \(vector)::real[]::vector)::float8 AS distance FROM document_chunks WHERE \(unescaped: Self.filterSQL) ORDER BY embedding <=> \(vector)::real[]::vector LIMIT \(chunkLimit)) AS c ORDER BY distance, id"
            Self.bindFilters(&sql, query: query, model: model)
            let searchList = max(Self.minimumEfSearch, min(1000, chunkLimit))
            // Every connection starts with iterative scans on and a search list of
            // `DatabaseConfiguration.sessionEfSearch`: one round trip unless this search needs more.
            guard searchList > DatabaseConfiguration.sessionEfSearch else {
                return try await Self.ranking(client.query(sql, logger: logger)) { 1 - $0 }
            }
            return try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', \(String(searchList)), true)", logger: logger)
                return try await Self.ranking(connection.query(sql, logger: logger)) { 1 - $0 }
            }
        }
    }

    /// Chunks matching any of the query's words. The score is mostly coverage (the share of the
    /// query's distinct stemmed words the chunk contains: the lexemes `ts_delete` removes), then
    /// `ts_rank` (title words weigh more), as 0.1 · r / (1 + r), below a tenth of a point to order
    /// equal coverage. `minimumCoverage` drops chunks that contain fewer of the words. Ids and
    /// scores only: `details(of:)` reads the contents of the chunks an answer keeps.
    func textRanking(_ query: SearchQuery, documents: Int, minimumCoverage: Double = 0) async throws -> [RankedChunk] {
        let model = provider.model.name
        return try await collectDocuments(documents) { chunkLimit in
            let statement = TextRanking(
                text: query.text, minimumCoverage: minimumCoverage, chunkLimit: chunkLimit, model: model,
                kinds: query.kinds, excludeAllergens: query.filters.excludeAllergens, age: query.filters.age)
            var ranked: [RankedChunk] = []
            for try await (id, documentId, distance) in try await client.execute(statement, logger: logger) {
                ranked.append(RankedChunk(chunkId: id, documentId: documentId, score: distance))
            }
            return ranked
        }
    }

    /// `textRanking`'s query, prepared: planning it took ~0.4 ms, twice as long as running it
    /// over the whole knowledge base.
    ///
    /// Coverage first, then `ts_rank` only for the chunks it leaves: the rank adds less than 0.1,
    /// so a chunk below `minimumCoverage - 0.1` cannot reach the minimum, and ranking is the costly
    /// part (a broad query matches most of the catalogue by one common word).
    struct TextRanking: PreparedStatement {
        static let sql = numberingFilterPlaceholders(
            """
            SELECT id, document_id, distance FROM (
                SELECT id, document_id, (coverage + (0.1 - 0.1 / (1 + ts_rank(search_text, query))))::float8 AS distance
                FROM (
                    \(rankColumns), search_text, q.query,
                           (length(search_text) - length(ts_delete(search_text, q.words)))::float8
                               / greatest(cardinality(q.words), 1) AS coverage
                    FROM document_chunks,
                         (SELECT replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery AS query,
                                 tsvector_to_array(to_tsvector('english', $1)) AS words) AS q
                    WHERE search_text @@ q.query AND \(filterSQL)
                    OFFSET 0) AS covered
                WHERE coverage > $2 - 0.1) AS c
            WHERE distance >= $2
            ORDER BY distance DESC, id LIMIT $3
            """, first: 4)
        static let bindingDataTypes: [PostgresDataType] = [.text, .float8, .int8, .text, .textArray, .textArray, .bool, .int8]
        typealias Row = (String, String, Double)

        var text: String
        var minimumCoverage: Double
        var chunkLimit: Int
        var model: String
        var kinds: [String]
        var excludeAllergens: [String]
        var age: Int?

        var parameters: [any PostgresEncodable] { [text, minimumCoverage, chunkLimit, model, kinds, excludeAllergens, age != nil, age ?? 0] }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }

    /// The HNSW search list size at least: pgvector's default (40) finds ~96% of the true ten
    /// nearest chunks for the labelled queries, 100 finds >99%, still cheap at this scale.
    public static let minimumEfSearch = 100

    static let columns = "SELECT id, document_id, kind, title, heading, chunk_index, text, age_min, age_max, allergens"

    /// The values of `columns`, in order.
    typealias ChunkColumns = (String, String, String, String, String?, Int, String, Int?, Int?, [String])

    /// A chunk read with `columns`, without a score.
    static func hit(_ c: ChunkColumns) -> SearchHit {
        SearchHit(
            chunkId: c.0, documentId: c.1, kind: c.2, title: c.3, heading: c.4, chunkIndex: c.5, text: c.6,
            ageMin: c.7, ageMax: c.8, allergens: c.9, score: 0)
    }

    /// The filters as SQL over named placeholders: `$M` model, `$K` kinds, `$A` excluded allergens,
    /// `$H` has-age, `$G` age. `bindFilters` numbers and binds them after the query's own parameters.
    static let filterSQL =
        "model = $M AND kind = ANY($K::text[]) AND NOT (allergens && $A::text[]) AND ($H = false OR ((age_min IS NULL OR age_min <= $G) AND (age_max IS NULL OR age_max >= $G)))"

    /// Replaces the named placeholders of `filterSQL` with the next free parameter numbers and binds them.
    static func bindFilters(_ query: inout PostgresQuery, query search: SearchQuery, model: String) {
        let first = query.binds.count + 1
        var binds = query.binds
        binds.append(model, context: .default)
        binds.append(search.kinds, context: .default)
        binds.append(search.filters.excludeAllergens, context: .default)
        binds.append(search.filters.age != nil, context: .default)
        binds.append(search.filters.age ?? 0, context: .default)
        query = PostgresQuery(unsafeSQL: numberingFilterPlaceholders(query.sql, first: first), binds: binds)
    }

    /// `$M $K $A $H $G` → `$first ... $first+4` (in that order), in one pass over the UTF-8.
    static func numberingFilterPlaceholders(_ sql: String, first: Int) -> String {
        let names: [UInt8: Int] = [UInt8(ascii: "M"): 0, UInt8(ascii: "K"): 1, UInt8(ascii: "A"): 2, UInt8(ascii: "H"): 3, UInt8(ascii: "G"): 4]
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + 8)
        var bytes = sql.utf8.makeIterator()
        var pending = bytes.next()
        while let byte = pending {
            pending = bytes.next()
            if byte == UInt8(ascii: "$"), let next = pending, let offset = names[next] {
                out.append(byte)
                out.append(contentsOf: String(first + offset).utf8)
                pending = bytes.next()
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Candidate lists carry only what ranking needs: a chunk's contents (its text is the widest
    /// column, often stored out of line) are read for the few chunks an answer returns.
    static let rankColumns = "SELECT id, document_id"

    static func ranking(_ rows: PostgresRowSequence, score: (Double) -> Double) async throws -> [RankedChunk] {
        var ranked: [RankedChunk] = []
        for try await (id, documentId, distance) in rows.decode((String, String, Double).self) {
            ranked.append(RankedChunk(chunkId: id, documentId: documentId, score: score(distance)))
        }
        return ranked
    }

    /// The chunks' contents, in the ranking's order and with its scores: from the resident index
    /// when it is current, from Postgres for the chunks it lacks.
    func details(of ranked: [RankedChunk]) async throws -> [SearchHit] {
        guard !ranked.isEmpty else { return [] }
        var byId: [String: SearchHit] = [:]
        if let chunks = await resident.snapshot(model: provider.model.name, client: client, logger: logger) {
            for chunk in ranked { byId[chunk.chunkId] = chunks.hit(chunk.chunkId) }
        }
        let missing = ranked.map(\.chunkId).filter { byId[$0] == nil }
        guard !missing.isEmpty else { return Self.ordered(ranked, byId) }
        let rows = try await client.query("\(unescaped: Self.columns) FROM document_chunks WHERE id = ANY(\(missing))", logger: logger)
        for try await columns in rows.decode(ChunkColumns.self) {
            byId[columns.0] = Self.hit(columns)
        }
        return Self.ordered(ranked, byId)
    }

    /// `ranked`'s chunks with their contents and scores. A chunk replaced between the ranking and
    /// the read (the worker re-embedding its document) drops out.
    static func ordered(_ ranked: [RankedChunk], _ byId: [String: SearchHit]) -> [SearchHit] {
        ranked.compactMap { chunk in
            guard var hit = byId[chunk.chunkId] else { return nil }
            hit.score = chunk.score
            return hit
        }
    }

    /// Runs `fetch` with a chunk limit, keeps each document's first (best) chunk, and fetches
    /// again with a larger limit while fewer than `documents` documents came back from a full page.
    func collectDocuments(_ documents: Int, fetch: (Int) async throws -> [RankedChunk]) async throws -> [RankedChunk] {
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
