import HearthStore
import Logging
import Metrics
import PostgresNIO
import Synchronization

/// One model's chunks of `document_chunks`, held in this process's memory while the index has not
/// changed, so that ranking by meaning and reading an answer's chunks need no round trip.
///
/// Why: the knowledge base is small (hundreds of chunks, at most tens of thousands), and an exact
/// scan of it in memory (~30 µs for 600 chunks of 384 floats) is cheaper than pgvector's HNSW
/// query over the network (~1–1.5 ms of Postgres time plus the round trip), and finds the true
/// nearest chunks instead of approximately them. Full-text ranking stays in Postgres, whose
/// English stemming and `ts_rank` define it.
///
/// Freshness is the result cache's: a snapshot is stamped with the generation of the index it was
/// read under (`ReadModelGeneration`, advanced by the embedding-worker's committed announcements)
/// and used only while that generation is current. Without a listening connection, above
/// `maximumChunks`, and while another search is loading a new snapshot, searches ask Postgres.
public final class ResidentChunkIndex: Sendable {
    /// Chunks this process keeps at most (~1.5 KB of vector plus the chunk's text each); 0 turns
    /// the resident index off.
    public let maximumChunks: Int
    private let generation: ReadModelGeneration?
    private let state = Mutex(State())
    private let residentChunks = Gauge(label: "hearth_search_resident_chunks")
    private let loadTimer = Timer(label: "hearth_search_resident_load_seconds")

    private struct State {
        var snapshot: Snapshot?
        /// A load is under way: other searches go to Postgres rather than wait for it.
        var loading = false
        /// The generation at which the model had more than `maximumChunks` chunks.
        var oversizedAt: UInt64?
    }

    /// `generation`: the index's; nil (or `maximumChunks` 0): nothing is kept.
    public init(maximumChunks: Int, generation: ReadModelGeneration?) {
        self.maximumChunks = generation == nil ? 0 : max(0, maximumChunks)
        self.generation = generation
    }

    /// The snapshot of `model`'s chunks as of the index's current generation, read now if the one
    /// held is older; nil when this search must ask Postgres.
    func snapshot(model: String, client: PostgresClient, logger: Logger) async -> ResidentChunks? {
        guard maximumChunks > 0, let generation, let now = generation.current else { return nil }
        enum Next { case use(ResidentChunks), askPostgres, load }
        let next: Next = state.withLock { state in
            if let snapshot = state.snapshot, snapshot.generation == now, snapshot.chunks.model == model { return .use(snapshot.chunks) }
            if state.oversizedAt == now || state.loading { return .askPostgres }
            state.loading = true
            return .load
        }
        switch next {
        case .use(let chunks): return chunks
        case .askPostgres: return nil
        case .load: break
        }
        defer { state.withLock { $0.loading = false } }
        let started = ContinuousClock.now
        do {
            guard let chunks = try await Self.read(model: model, maximumChunks: maximumChunks, client: client, logger: logger) else {
                state.withLock { $0.oversizedAt = now; $0.snapshot = nil }
                residentChunks.record(0)
                logger.notice("the knowledge index is larger than the resident limit: vector searches use the HNSW index", metadata: [
                    "model": "\(model)", "limit": "\(maximumChunks)",
                ])
                return nil
            }
            loadTimer.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            residentChunks.record(chunks.count)
            state.withLock { $0.snapshot = Snapshot(generation: now, chunks: chunks) }
            // A change announced while this read ran may or may not be in it: the stamp taken
            // before the read is already behind, so the next search reads again.
            return generation.current == now ? chunks : nil
        } catch {
            logger.warning("reading the knowledge index into memory failed: this search asks Postgres", metadata: ["error": "\(String(reflecting: error))"])
            return nil
        }
    }

    private struct Snapshot: Sendable {
        var generation: UInt64
        var chunks: ResidentChunks
    }

    /// Every chunk of `model`, or nil when there are more than `maximumChunks`.
    static func read(model: String, maximumChunks: Int, client: PostgresClient, logger: Logger) async throws -> ResidentChunks? {
        let counted = try await client.query("SELECT count(*)::bigint FROM document_chunks WHERE model = \(model)", logger: logger)
        var count = 0
        for try await total in counted.decode(Int64.self) { count = Int(total) }
        guard count <= maximumChunks else { return nil }
        let rows = try await client.query(
            """
            \(unescaped: KnowledgeSearch.columns), embedding::real[]
            FROM document_chunks WHERE model = \(model) LIMIT \(maximumChunks + 1)
            """, logger: logger)
        var chunks = ResidentChunks(model: model, dimension: EmbeddingIndex.dimension)
        for try await (id, documentId, kind, title, heading, chunkIndex, text, ageMin, ageMax, allergens, embedding)
            in rows.decode((String, String, String, String, String?, Int, String, Int?, Int?, [String], [Float]).self) {
            let columns = (id, documentId, kind, title, heading, chunkIndex, text, ageMin, ageMax, allergens)
            try chunks.append(KnowledgeSearch.hit(columns), embedding: embedding)
        }
        // Rows written between the count and the read: too many after all.
        return chunks.count <= maximumChunks ? chunks : nil
    }
}
