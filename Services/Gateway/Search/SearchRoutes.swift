import Foundation
import HearthDomain
import HearthKnowledge
import HearthRuntime
import Hummingbird
import Logging

/// `GET /v1/rag/search/recipes|knowledge|all`: hybrid (default), vector or text search over the
/// embedding-worker's `document_chunks`, one result per document. The query is embedded here with
/// the active model, which loads on the first search.
struct SearchRoutes: Sendable {
    let search: KnowledgeSearch
    let allergens: AllergenVocabulary

    struct Answer: ResponseEncodable {
        let query: String
        let mode: String
        let results: [Result]
    }

    struct Result: Encodable {
        let id: String
        let documentId: String
        let kind: String
        let title: String
        let snippet: String
        let score: Double
        let meta: Meta

        enum CodingKeys: String, CodingKey {
            case id
            case documentId = "document_id"
            case kind, title, snippet, score, meta
        }
    }

    struct Meta: Encodable {
        let ageMin: Int?
        let ageMax: Int?
        let allergens: [String]
        let heading: String?
        let chunk: Int

        enum CodingKeys: String, CodingKey {
            case ageMin = "age_min"
            case ageMax = "age_max"
            case allergens, heading, chunk
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ageMin, forKey: .ageMin)
            try container.encode(ageMax, forKey: .ageMax)
            try container.encode(allergens, forKey: .allergens)
            try container.encode(heading, forKey: .heading)
            try container.encode(chunk, forKey: .chunk)
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        for scope in SearchScope.allCases {
            routes.get("rag/search/\(scope.rawValue)") { request, context in
                try await answer(scope: scope, request: request, context: context)
            }
        }
    }

    func answer(scope: SearchScope, request: Request, context: HearthRequestContext) async throws -> Answer {
        _ = try context.authenticatedUser()
        let query = try SearchRequest(scope: scope, parameters: FormQuery.parameters(of: request), allergens: allergens).query
        let hits: [SearchHit]
        do {
            hits = try await search.search(query)
        } catch let error as EmbeddingProviderError {
            context.logger.error("search embedding failed", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "search_unavailable", message: "search is unavailable right now; try again shortly")
        }
        return Answer(
            query: query.text, mode: query.mode.rawValue,
            results: hits.map { hit in
                Result(
                    id: hit.chunkId, documentId: hit.documentId, kind: hit.kind, title: hit.title, snippet: hit.snippet(),
                    score: (hit.score * 1_000_000).rounded() / 1_000_000,
                    meta: Meta(ageMin: hit.ageMin, ageMax: hit.ageMax, allergens: hit.allergens, heading: hit.heading, chunk: hit.chunkIndex))
            })
    }
}

extension SearchRoutes {
    /// The searcher with the configured embedder (`HEARTH_EMBEDDING_PROVIDER`, the
    /// embedding-worker's setting); its model is not loaded until the first search.
    static func make(host: ServiceHost) throws -> SearchRoutes {
        SearchRoutes(
            search: try EmbeddingSettings.search(client: host.postgres, changes: host.readModelChanges, logger: host.logger, environment: host.settings.environment),
            allergens: try AllergenVocabulary.bundled())
    }
}
