import Foundation
import HearthEvents
import HearthKnowledge
import HearthRuntime
import HearthStore
import Hummingbird

/// Body of `POST /v1/admin/documents`.
struct DocumentUpsertRequest: Decodable {
    var id: String
    var kind: String
    var title: String
    var body: String
    var ageMin: Int?
    var ageMax: Int?
    var allergens: [String]?

    enum CodingKeys: String, CodingKey {
        case id, kind, title, body
        case ageMin = "age_min"
        case ageMax = "age_max"
        case allergens
    }

    static let maxBodyCharacters = 200_000

    func validated() throws -> SourceDocument {
        guard DocumentKind.isValidId(id) else { throw APIError.invalid("id", "id must be 1 to 128 of a-z, 0-9, -, _, . and :") }
        guard DocumentKind.all.contains(kind) else { throw APIError.invalid("kind", "kind must be one of \(DocumentKind.all.joined(separator: ", "))") }
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...300).contains(title.unicodeScalars.count) else { throw APIError.invalid("title", "title must be 1 to 300 characters") }
        let body = body.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxBodyCharacters).contains(body.unicodeScalars.count) else {
            throw APIError.invalid("body", "body must be 1 to \(Self.maxBodyCharacters) characters")
        }
        for (field, age) in [("age_min", ageMin), ("age_max", ageMax)] {
            if let age, !(0...25).contains(age) { throw APIError.invalid(field, "\(field) must be 0...25") }
        }
        if let ageMin, let ageMax, ageMin > ageMax { throw APIError.invalid("age_max", "age_max must not be below age_min") }
        let allergens = (allergens ?? []).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for allergen in allergens where !(1...40).contains(allergen.unicodeScalars.count) || !allergen.allSatisfy({ $0.isLetter || $0 == "_" }) {
            throw APIError.invalid("allergens", "allergens must be canonical keys such as peanut or tree_nut")
        }
        return SourceDocument(id: id, kind: kind, title: title, ageMin: ageMin, ageMax: ageMax, allergens: Array(Set(allergens)).sorted(), body: body)
    }
}

/// `POST /v1/admin/documents` and `DELETE /v1/admin/documents/{id}`: administrators add, change
/// and remove knowledge documents and recipes. Both publish to the `content` topic and answer 202;
/// the embedding-worker makes the change searchable.
struct DocumentAdminRoutes: Sendable {
    let publisher: EventPublisher

    struct Accepted: ResponseEncodable {
        let documentId: String
        let contentHash: String?
        let position: String

        enum CodingKeys: String, CodingKey {
            case documentId = "document_id"
            case contentHash = "content_hash"
            case position
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("documents") { request, context in
            let document = try await JSONRequestBody.decode(DocumentUpsertRequest.self, from: request, context: context).validated()
            let position = try await publisher.publish(document.upsertEvent, correlationId: context.correlationId)
            return EditedResponse(
                status: .accepted,
                response: Accepted(documentId: document.id, contentHash: document.contentHash, position: position.description))
        }
        routes.delete("documents/{id}") { _, context in
            let id = try context.parameters.require("id")
            guard DocumentKind.isValidId(id) else { throw APIError.invalid("id", "id must be 1 to 128 of a-z, 0-9, -, _, . and :") }
            let position = try await publisher.publish(DocumentDeleted(documentId: id), correlationId: context.correlationId)
            return EditedResponse(status: .accepted, response: Accepted(documentId: id, contentHash: nil, position: position.description))
        }
    }
}
