import Foundation

/// `content.document_upserted` v1: a knowledge document or recipe is new or has changed. Published
/// by `hearthctl ingest` and `POST /v1/admin/documents`; the embedding-worker chunks and embeds it.
/// Keyed by the document id, so an upsert and a later delete of one document stay in order.
/// `content_hash` covers everything that shapes the chunks, so an unchanged document is not
/// embedded again.
public struct DocumentUpserted: EventPayload {
    public static let eventType = "content.document_upserted"
    public static let version = 1
    public static let topic = Topic.content
    public static let privacy = PayloadPrivacy.nothingPersonal([
        "document_id", "kind", "title", "age_min", "age_max", "allergens", "body", "content_hash",
    ])

    public var documentId: String
    /// `recipe` or a knowledge kind: `safety`, `discipline`, `routines`, `development`, `tips`, `nutrition`.
    public var kind: String
    public var title: String
    /// Ages in years the document speaks to; nil means any age.
    public var ageMin: Int?
    public var ageMax: Int?
    /// Canonical allergen keys (recipes); empty for knowledge documents.
    public var allergens: [String]
    /// Markdown: headings and paragraphs guide the chunking.
    public var body: String
    /// Hex SHA-256 of kind, title, ages, allergens and body.
    public var contentHash: String

    public var aggregateKey: String { documentId }

    enum CodingKeys: String, CodingKey {
        case documentId = "document_id"
        case kind, title
        case ageMin = "age_min"
        case ageMax = "age_max"
        case allergens, body
        case contentHash = "content_hash"
    }

    public init(documentId: String, kind: String, title: String, ageMin: Int?, ageMax: Int?, allergens: [String], body: String, contentHash: String) {
        self.documentId = documentId
        self.kind = kind
        self.title = title
        self.ageMin = ageMin
        self.ageMax = ageMax
        self.allergens = allergens
        self.body = body
        self.contentHash = contentHash
    }
}

/// `content.document_deleted` v1: a document must no longer be found. Same key as its upserts.
public struct DocumentDeleted: EventPayload {
    public static let eventType = "content.document_deleted"
    public static let version = 1
    public static let topic = Topic.content
    public static let privacy = PayloadPrivacy.nothingPersonal(["document_id"])

    public var documentId: String

    public var aggregateKey: String { documentId }

    enum CodingKeys: String, CodingKey {
        case documentId = "document_id"
    }

    public init(documentId: String) {
        self.documentId = documentId
    }
}

/// `content.embedded` v1: the embedding-worker has (re-)embedded a document's chunks with `model`.
/// Not published when an upsert left the content and the model unchanged.
public struct ContentEmbedded: EventPayload {
    public static let eventType = "content.embedded"
    public static let version = 1
    public static let topic = Topic.content
    public static let privacy = PayloadPrivacy.nothingPersonal(["document_id", "chunk_count", "model", "dimension", "content_hash"])

    public var documentId: String
    public var chunkCount: Int
    public var model: String
    public var dimension: Int
    public var contentHash: String

    public var aggregateKey: String { documentId }

    enum CodingKeys: String, CodingKey {
        case documentId = "document_id"
        case chunkCount = "chunk_count"
        case model, dimension
        case contentHash = "content_hash"
    }

    public init(documentId: String, chunkCount: Int, model: String, dimension: Int, contentHash: String) {
        self.documentId = documentId
        self.chunkCount = chunkCount
        self.model = model
        self.dimension = dimension
        self.contentHash = contentHash
    }
}
