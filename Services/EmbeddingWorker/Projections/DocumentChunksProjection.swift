import Foundation
import HearthEvents
import HearthKnowledge
import HearthStore
import Logging
import Metrics
import PostgresNIO

/// `content_documents` and `document_chunks` from the `content` topic: each upserted document is
/// chunked, embedded with the active model and stored with its vectors; a deleted document loses
/// its rows. A document whose content hash and model are what the table already holds is not
/// embedded again. Embedding is deterministic for a given model, so a replay rebuilds the same rows.
public struct DocumentChunksProjection: Projection {
    public let name = EmbeddingSettings.indexReadModel
    /// Embedding takes far longer per event than other projections' writes: smaller batches keep
    /// each transaction (and the pause between Kafka polls) short.
    public let maxBatchSize: Int? = 32
    public let topics: [Topic] = [.content]
    public let tables = ["content_documents", "document_chunks"]

    let writer: DocumentChunkWriter
    /// Where `content.embedded` goes; nil for a replay (run by `hearthctl`), which re-creates
    /// state that was announced when it first happened. Announcements go out inside the
    /// projection's transaction, before its commit: a batch that then fails is retried and
    /// announced again, so consumers see `content.embedded` at least once.
    let publisher: EventPublisher?

    public init(provider: any EmbeddingProvider, publisher: EventPublisher? = nil, chunker: DocumentChunker = DocumentChunker()) {
        self.writer = DocumentChunkWriter(provider: provider, chunker: chunker)
        self.publisher = publisher
    }

    enum Change {
        case upsert(DocumentUpserted)
        case delete
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // A batch is folded to each document's last change: only that one decides the rows.
        var order: [String] = []
        var last: [String: (change: Change, event: ProjectedEvent)] = [:]
        for event in events {
            let change: (String, Change)
            switch event.payload {
            case let upserted as DocumentUpserted: change = (upserted.documentId, .upsert(upserted))
            case let deleted as DocumentDeleted: change = (deleted.documentId, .delete)
            default: continue  // content.embedded: our own announcements
            }
            if last[change.0] == nil { order.append(change.0) }
            last[change.0] = (change.1, event)
        }
        guard !order.isEmpty else { return }

        let deleted = order.filter { if case .delete = last[$0]!.change { true } else { false } }
        if !deleted.isEmpty {
            try await connection.query("DELETE FROM content_documents WHERE document_id = ANY(\(deleted)::text[])", logger: logger)
            try await ReadModelChanges.announce(EmbeddingSettings.indexReadModel, on: connection, logger: logger)
            Counter(label: "hearth_embeddings_documents_total", dimensions: [("outcome", "deleted")]).increment(by: deleted.count)
        }

        var upserts: [(DocumentUpserted, ProjectedEvent)] = []
        for id in order { if case .upsert(let document) = last[id]!.change { upserts.append((document, last[id]!.event)) } }
        guard !upserts.isEmpty else { return }
        let current = try await writer.storedVersions(of: upserts.map { $0.0.documentId }, on: connection, logger: logger)
        var unchanged: [(DocumentUpserted, ProjectedEvent)] = []
        var changed: [(DocumentUpserted, ProjectedEvent)] = []
        for (document, event) in upserts {
            let stored = current[document.documentId]
            if stored?.hash == document.contentHash && stored?.model == writer.provider.model.name {
                unchanged.append((document, event))
            } else {
                changed.append((document, event))
            }
        }
        if !unchanged.isEmpty {
            try await connection.query(
                """
                UPDATE content_documents AS d SET last_event_id = v.event_id, updated_at = v.at::timestamptz
                FROM unnest(\(unchanged.map { $0.0.documentId })::text[], \(unchanged.map { $0.1.metadata.id })::uuid[],
                            \(unchanged.map { Timestamp.format($0.1.metadata.occurredAt) })::text[]) AS v(id, event_id, at)
                WHERE d.document_id = v.id
                """, logger: logger)
            Counter(label: "hearth_embeddings_documents_total", dimensions: [("outcome", "unchanged")]).increment(by: unchanged.count)
        }
        guard !changed.isEmpty else { return }
        let written = try await writer.write(
            changed.map { StoredDocument(upserted: $0.0, eventId: $0.1.metadata.id, at: $0.1.metadata.occurredAt) }, on: connection, logger: logger)
        for ((document, event), chunkCount) in zip(changed, written) {
            _ = try await publisher?.publish(
                ContentEmbedded(
                    documentId: document.documentId, chunkCount: chunkCount, model: writer.provider.model.name,
                    dimension: writer.provider.model.dimension, contentHash: document.contentHash),
                correlationId: event.metadata.correlationId, causationId: event.metadata.id.uuidString.lowercased())
        }
    }
}

/// A document as `content_documents` holds it.
public struct StoredDocument: Sendable {
    public var id: String
    public var kind: String
    public var title: String
    public var ageMin: Int?
    public var ageMax: Int?
    public var allergens: [String]
    public var body: String
    public var contentHash: String
    public var eventId: UUID
    public var at: Date

    init(upserted: DocumentUpserted, eventId: UUID, at: Date) {
        self.init(
            id: upserted.documentId, kind: upserted.kind, title: upserted.title, ageMin: upserted.ageMin, ageMax: upserted.ageMax,
            allergens: upserted.allergens, body: upserted.body, contentHash: upserted.contentHash, eventId: eventId, at: at)
    }

    public init(id: String, kind: String, title: String, ageMin: Int?, ageMax: Int?, allergens: [String], body: String, contentHash: String, eventId: UUID, at: Date) {
        self.id = id
        self.kind = kind
        self.title = title
        self.ageMin = ageMin
        self.ageMax = ageMax
        self.allergens = allergens
        self.body = body
        self.contentHash = contentHash
        self.eventId = eventId
        self.at = at
    }
}

/// Chunks, embeds and writes documents: shared by the projection and by the re-embedding that
/// follows a change of model.
public struct DocumentChunkWriter: Sendable {
    public let provider: any EmbeddingProvider
    public let chunker: DocumentChunker
    /// Texts per embedding call: bounds the embedder's scratch memory and an API request's size.
    public var embeddingBatchSize = 16

    public init(provider: any EmbeddingProvider, chunker: DocumentChunker = DocumentChunker()) {
        self.provider = provider
        self.chunker = chunker
    }

    func storedVersions(of ids: [String], on connection: PostgresConnection, logger: Logger) async throws -> [String: (hash: String, model: String?)] {
        var versions: [String: (hash: String, model: String?)] = [:]
        let rows = try await connection.query(
            "SELECT document_id, content_hash, model FROM content_documents WHERE document_id = ANY(\(ids)::text[])", logger: logger)
        for try await (id, hash, model) in rows.decode((String, String, String?).self) { versions[id] = (hash, model) }
        return versions
    }

    /// The text a chunk is embedded as: the document's title gives every chunk its subject.
    public static func embeddingInput(title: String, chunk: TextChunk) -> String {
        "\(title). \(chunk.text)"
    }

    /// Replaces the documents' rows and chunks; answers each document's chunk count.
    public func write(_ documents: [StoredDocument], on connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        let started = ContinuousClock.now
        let model = provider.model
        var chunkRows: [(document: StoredDocument, chunk: TextChunk)] = []
        var counts: [Int] = []
        for document in documents {
            var chunks = chunker.chunks(of: document.body)
            if chunks.isEmpty { chunks = [TextChunk(index: 0, heading: nil, text: document.title, wordCount: 0)] }
            counts.append(chunks.count)
            chunkRows += chunks.map { (document, $0) }
        }
        var vectors: [[Float]] = []
        vectors.reserveCapacity(chunkRows.count)
        var start = 0
        while start < chunkRows.count {
            let slice = chunkRows[start..<min(start + embeddingBatchSize, chunkRows.count)]
            let embedded = try await provider.embed(slice.map { Self.embeddingInput(title: $0.document.title, chunk: $0.chunk) })
            guard embedded.count == slice.count, embedded.allSatisfy({ $0.count == EmbeddingIndex.dimension }) else {
                throw EmbeddingProviderError("\(model) answered \(embedded.count) vectors for \(slice.count) texts, or not \(EmbeddingIndex.dimension) dimensions", retriable: false)
            }
            vectors += embedded
            start += embeddingBatchSize
        }

        try await connection.query(
            """
            INSERT INTO content_documents (document_id, kind, title, age_min, age_max, allergens, body, content_hash, model, chunk_count,
                                           embed_count, updated_at, last_event_id)
            SELECT id, kind, title, NULLIF(age_min, -1), NULLIF(age_max, -1), string_to_array(allergens, ','), body, hash, \(model.name),
                   chunks, 1, at::timestamptz, event_id
            FROM unnest(\(documents.map(\.id))::text[], \(documents.map(\.kind))::text[], \(documents.map(\.title))::text[],
                        \(documents.map { $0.ageMin ?? -1 })::int[], \(documents.map { $0.ageMax ?? -1 })::int[],
                        \(documents.map { $0.allergens.joined(separator: ",") })::text[], \(documents.map(\.body))::text[],
                        \(documents.map(\.contentHash))::text[], \(counts)::int[], \(documents.map { Timestamp.format($0.at) })::text[],
                        \(documents.map(\.eventId))::uuid[])
                 AS v(id, kind, title, age_min, age_max, allergens, body, hash, chunks, at, event_id)
            ON CONFLICT (document_id) DO UPDATE SET
                kind = excluded.kind, title = excluded.title, age_min = excluded.age_min, age_max = excluded.age_max,
                allergens = excluded.allergens, body = excluded.body, content_hash = excluded.content_hash, model = excluded.model,
                chunk_count = excluded.chunk_count, embed_count = content_documents.embed_count + 1,
                updated_at = excluded.updated_at, last_event_id = excluded.last_event_id
            """, logger: logger)
        try await connection.query("DELETE FROM document_chunks WHERE document_id = ANY(\(documents.map(\.id))::text[])", logger: logger)
        try await connection.query(
            """
            INSERT INTO document_chunks (id, document_id, chunk_index, kind, title, heading, text, age_min, age_max, allergens,
                                         model, dimension, content_hash, embedding)
            SELECT document_id || '#' || chunk_index, document_id, chunk_index, kind, title, NULLIF(heading, ''), text,
                   NULLIF(age_min, -1), NULLIF(age_max, -1), string_to_array(allergens, ','), \(model.name), \(model.dimension),
                   hash, embedding::vector
            FROM unnest(\(chunkRows.map(\.document.id))::text[], \(chunkRows.map(\.chunk.index))::int[],
                        \(chunkRows.map(\.document.kind))::text[], \(chunkRows.map(\.document.title))::text[],
                        \(chunkRows.map { $0.chunk.heading ?? "" })::text[], \(chunkRows.map(\.chunk.text))::text[],
                        \(chunkRows.map { $0.document.ageMin ?? -1 })::int[], \(chunkRows.map { $0.document.ageMax ?? -1 })::int[],
                        \(chunkRows.map { $0.document.allergens.joined(separator: ",") })::text[],
                        \(chunkRows.map(\.document.contentHash))::text[], \(vectors.map(\.pgvectorLiteral))::text[])
                 AS v(document_id, chunk_index, kind, title, heading, text, age_min, age_max, allergens, hash, embedding)
            """, logger: logger)
        // Searchers cache answers until the index changes (`SearchResultCache`).
        try await ReadModelChanges.announce(EmbeddingSettings.indexReadModel, on: connection, logger: logger)
        Counter(label: "hearth_embeddings_chunks_total", dimensions: [("model", model.name)]).increment(by: chunkRows.count)
        Counter(label: "hearth_embeddings_documents_total", dimensions: [("outcome", "embedded")]).increment(by: documents.count)
        Timer(label: "hearth_embeddings_write_seconds", dimensions: [("model", model.name)]).recordNanoseconds((ContinuousClock.now - started).nanoseconds)
        return counts
    }

    /// Documents embedded with another model (or none): re-embedded, a batch at a time, until the
    /// index holds only the active model. Each document is locked and re-read, so an upsert the
    /// projection applies meanwhile is never overwritten with older content.
    public func reembedStale(client: PostgresClient, logger: Logger, batch: Int = 32) async throws -> Int {
        var total = 0
        while true {
            let done = try await client.withTransaction(logger: logger) { connection -> Int in
                let rows = try await connection.query(
                    """
                    SELECT document_id, kind, title, age_min, age_max, allergens, body, content_hash, last_event_id, updated_at
                    FROM content_documents WHERE model IS DISTINCT FROM \(provider.model.name)
                    ORDER BY document_id LIMIT \(batch) FOR UPDATE SKIP LOCKED
                    """, logger: logger)
                var documents: [StoredDocument] = []
                for try await (id, kind, title, ageMin, ageMax, allergens, body, hash, eventId, at)
                    in rows.decode((String, String, String, Int?, Int?, [String], String, String, UUID, Date).self) {
                    documents.append(StoredDocument(
                        id: id, kind: kind, title: title, ageMin: ageMin, ageMax: ageMax, allergens: allergens, body: body,
                        contentHash: hash, eventId: eventId, at: at))
                }
                guard !documents.isEmpty else { return 0 }
                _ = try await write(documents, on: connection, logger: logger)
                return documents.count
            }
            if done == 0 { return total }
            total += done
            logger.info("re-embedded documents for a new model", metadata: ["model": "\(provider.model)", "documents": "\(total)"])
        }
    }
}
