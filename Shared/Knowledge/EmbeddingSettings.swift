import AsyncHTTPClient
import Foundation
import Logging
import PostgresNIO

/// Which provider embeds, from the environment. The embedding-worker and every searcher (gateway,
/// assist-orchestrator, `hearthctl eval`) must read the same settings: searches only compare
/// vectors of the active model.
///
/// - `HEARTH_EMBEDDING_PROVIDER`: `minilm` (default) or `openai`
/// - `HEARTH_OPENAI_API_KEY`, `HEARTH_OPENAI_BASE_URL` (default https://api.openai.com),
///   `HEARTH_OPENAI_EMBEDDING_MODEL` (default text-embedding-3-small): for `openai`
/// - `HEARTH_MINILM_DIR`: for `minilm` (see `MiniLMEmbedder.locateModelDirectory`)
/// - `HEARTH_QUERY_EMBEDDING_CACHE`: how many recent query embeddings a searcher keeps (default
///   4096, ~6 MB at most; 0 turns the cache off)
public enum EmbeddingSettings {
    public static let defaultQueryCacheCapacity = 4096

    /// The searcher's cache of recent query embeddings, sized by `HEARTH_QUERY_EMBEDDING_CACHE`.
    public static func queryCache(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> QueryEmbeddingCache {
        guard let raw = environment["HEARTH_QUERY_EMBEDDING_CACHE"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else {
            return QueryEmbeddingCache(capacity: defaultQueryCacheCapacity)
        }
        guard let capacity = Int(raw), (0...1_000_000).contains(capacity) else {
            throw Invalid(description: "HEARTH_QUERY_EMBEDDING_CACHE must be a whole number from 0 to 1000000, not \(raw)")
        }
        return QueryEmbeddingCache(capacity: capacity)
    }

    /// A knowledge search with the configured provider and query cache: what every service that
    /// searches (gateway, assist-orchestrator) uses.
    public static func search(client: PostgresClient, logger: Logger, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> KnowledgeSearch {
        KnowledgeSearch(
            client: client, provider: try provider(environment: environment), logger: logger,
            queryEmbeddings: try queryCache(environment: environment))
    }

    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public static func provider(
        environment: [String: String] = ProcessInfo.processInfo.environment, client: HTTPClient = .shared
    ) throws -> any EmbeddingProvider {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        switch value("HEARTH_EMBEDDING_PROVIDER")?.lowercased() ?? "minilm" {
        case "minilm":
            return MiniLMEmbeddingProvider()
        case "openai":
            guard let key = value("HEARTH_OPENAI_API_KEY") else {
                throw Invalid(description: "HEARTH_EMBEDDING_PROVIDER=openai needs HEARTH_OPENAI_API_KEY")
            }
            return OpenAIEmbeddingProvider(
                apiKey: key, modelName: value("HEARTH_OPENAI_EMBEDDING_MODEL") ?? OpenAIEmbeddingProvider.defaultModel,
                baseURL: value("HEARTH_OPENAI_BASE_URL") ?? OpenAIEmbeddingProvider.defaultBaseURL, client: client)
        case let other:
            throw Invalid(description: "HEARTH_EMBEDDING_PROVIDER must be minilm or openai, not \(other)")
        }
    }
}
