import Crypto
import Foundation
import HearthEvents

/// A document as the content library holds it, before chunking: a knowledge article or a recipe.
public struct SourceDocument: Sendable, Equatable {
    public var id: String
    public var kind: String
    public var title: String
    public var ageMin: Int?
    public var ageMax: Int?
    public var allergens: [String]
    public var body: String

    public init(id: String, kind: String, title: String, ageMin: Int?, ageMax: Int?, allergens: [String], body: String) {
        self.id = id
        self.kind = kind
        self.title = title
        self.ageMin = ageMin
        self.ageMax = ageMax
        self.allergens = allergens
        self.body = body
    }

    /// Hex SHA-256 over every field that shapes the chunks. Fields are length-prefixed so that no
    /// two different documents can produce the same byte string.
    public var contentHash: String {
        var hasher = SHA256()
        let fields = [kind, title, ageMin.map(String.init) ?? "-", ageMax.map(String.init) ?? "-", allergens.sorted().joined(separator: ","), body]
        for field in fields {
            let bytes = Array(field.utf8)
            hasher.update(data: Array("\(bytes.count):".utf8))
            hasher.update(data: bytes)
        }
        return Hex.encode(hasher.finalize())
    }

    public var upsertEvent: DocumentUpserted {
        DocumentUpserted(
            documentId: id, kind: kind, title: title, ageMin: ageMin, ageMax: ageMax, allergens: allergens.sorted(), body: body,
            contentHash: contentHash)
    }
}

/// The kinds a document may have, and the id shape every document id must follow.
public enum DocumentKind {
    public static let recipe = "recipe"
    public static let knowledge = ["safety", "discipline", "routines", "development", "tips", "nutrition"]
    public static let all = knowledge + [recipe]

    /// Lower-case letters, digits and `-_.:`, 1...128 characters: safe in URLs, logs and Kafka keys.
    public static func isValidId(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count) else { return false }
        return id.utf8.allSatisfy { byte in
            (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2d || byte == 0x5f || byte == 0x2e || byte == 0x3a
        }
    }
}
