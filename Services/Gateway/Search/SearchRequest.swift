import Foundation
import HearthDomain
import HearthKnowledge
import HearthRuntime

/// The query string of `GET /v1/rag/search/{scope}`, validated: every bad value is a 400 that
/// names its parameter, so no input reaches the database unchecked.
struct SearchRequest {
    static let maxQueryCharacters = 1000
    static let kRange = 1...50
    static let ageRange = 0...25

    let query: SearchQuery

    init(scope: SearchScope, parameters: [String: String], allergens: AllergenVocabulary) throws {
        let text = (parameters["q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIError.invalid("q", "q is required: the words to search for") }
        guard text.unicodeScalars.count <= Self.maxQueryCharacters else {
            throw APIError.invalid("q", "q must be at most \(Self.maxQueryCharacters) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.value == 0 }) else { throw APIError.invalid("q", "q must not contain NUL characters") }

        var limit = 10
        if let raw = parameters["k"] {
            guard let value = Int(raw), Self.kRange.contains(value) else {
                throw APIError.invalid("k", "k must be a whole number in \(Self.kRange.lowerBound)...\(Self.kRange.upperBound)")
            }
            limit = value
        }

        var mode = SearchMode.hybrid
        if let raw = parameters["mode"] {
            guard let value = SearchMode(rawValue: raw) else { throw APIError.invalid("mode", "mode must be hybrid, vector or text") }
            mode = value
        }

        var kind: String?
        if let raw = parameters["kind"], !raw.isEmpty {
            let allowed: [String] = switch scope {
            case .recipes: [DocumentKind.recipe]
            case .knowledge: DocumentKind.knowledge
            case .all: DocumentKind.all
            }
            guard allowed.contains(raw) else { throw APIError.invalid("kind", "kind must be one of \(allowed.joined(separator: ", "))") }
            kind = raw
        }

        var excluded: [String] = []
        if let raw = parameters["exclude_allergens"] {
            for term in raw.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !term.isEmpty {
                if let canonical = allergens.canonicalAllergens.first(where: { $0.rawValue == term }) {
                    excluded.append(canonical.rawValue)
                } else if let declared = allergens.allergensDeclared(by: term), !declared.isEmpty {
                    excluded += declared.map(\.rawValue)
                } else {
                    throw APIError.invalid(
                        "exclude_allergens",
                        "exclude_allergens: unknown allergen \(term.prefix(40)); use \(allergens.canonicalAllergens.map(\.rawValue).joined(separator: ", "))")
                }
            }
        }

        var age: Int?
        if let raw = parameters["age"] {
            guard let value = Int(raw), Self.ageRange.contains(value) else {
                throw APIError.invalid("age", "age must be a whole number of years in \(Self.ageRange.lowerBound)...\(Self.ageRange.upperBound)")
            }
            age = value
        }

        query = SearchQuery(
            text: text, scope: scope, mode: mode, limit: limit,
            filters: SearchFilters(kind: kind, excludeAllergens: Array(Set(excluded)).sorted(), age: age))
    }
}
