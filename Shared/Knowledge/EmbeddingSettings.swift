import AsyncHTTPClient
import Foundation
import HearthConfiguration
import HearthEmbeddings
import HearthStore
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
/// - `HEARTH_ENCODER_KERNEL`: for `minilm`, the kernel path (`avx512`, `avx2`, `portable`;
///   default the fastest this CPU runs). Every path gives the same vectors; an x86-64 CPU without
///   AVX2, FMA and F16C is refused here, at start-up (see `EncoderKernelPath`)
/// - `HEARTH_QUERY_EMBEDDING_CACHE`: how many recent query embeddings a searcher keeps (default
///   4096, ~6 MB at most; 0 turns the cache off)
/// - `HEARTH_SEARCH_RESULT_CACHE`: how many recent search answers a searcher keeps until the index
///   changes (default 1024; 0 turns the cache off)
/// - `HEARTH_SEARCH_RESIDENT_CHUNKS`: a searcher holds the index in memory while it has at most
///   this many chunks of the active model (default 20000, ~40 MB at most; 0: always ask Postgres)
public enum EmbeddingSettings {
    public static let defaultQueryCacheCapacity = 4096
    public static let defaultResultCacheCapacity = 1024
    public static let defaultResidentChunks = 20_000
    /// The read model whose changes invalidate cached answers: the embedding-worker's projection
    /// announces it whenever it writes chunks (`DocumentChunksProjection`).
    public static let indexReadModel = "document_chunks"

    /// The searcher's cache of recent query embeddings, sized by `HEARTH_QUERY_EMBEDDING_CACHE`.
    public static func queryCache(environment: EnvironmentReader = EnvironmentReader()) throws -> QueryEmbeddingCache {
        QueryEmbeddingCache(capacity: try capacity("HEARTH_QUERY_EMBEDDING_CACHE", default: defaultQueryCacheCapacity, environment: environment))
    }

    /// The searcher's cache of recent answers, sized by `HEARTH_SEARCH_RESULT_CACHE` and kept valid
    /// by `changes` (nil: no cache).
    public static func resultCache(changes: ReadModelChangeFeed?, environment: EnvironmentReader = EnvironmentReader()) throws -> SearchResultCache {
        let capacity = try capacity("HEARTH_SEARCH_RESULT_CACHE", default: defaultResultCacheCapacity, environment: environment)
        guard capacity > 0, let changes else { return SearchResultCache(capacity: 0, generation: nil) }
        return SearchResultCache(capacity: capacity, generation: changes.generation(of: indexReadModel))
    }

    /// The searcher's in-memory copy of the index, bounded by `HEARTH_SEARCH_RESIDENT_CHUNKS` and
    /// kept current by `changes` (nil: none).
    public static func residentIndex(changes: ReadModelChangeFeed?, environment: EnvironmentReader = EnvironmentReader()) throws -> ResidentChunkIndex {
        let maximum = try capacity("HEARTH_SEARCH_RESIDENT_CHUNKS", default: defaultResidentChunks, environment: environment)
        guard maximum > 0, let changes else { return ResidentChunkIndex(maximumChunks: 0, generation: nil) }
        return ResidentChunkIndex(maximumChunks: maximum, generation: changes.generation(of: indexReadModel))
    }

    private static func capacity(_ name: String, default value: Int, environment: EnvironmentReader) throws -> Int {
        guard let raw = environment.trimmed(name) else { return value }
        guard let capacity = Int(raw), (0...1_000_000).contains(capacity) else {
            throw Invalid(description: "\(name) must be a whole number from 0 to 1000000, not \(raw)")
        }
        return capacity
    }

    /// A knowledge search with the configured provider and caches: what every service that
    /// searches (gateway, assist-orchestrator) uses. `changes` is the process's feed of read model
    /// changes, which keeps cached answers valid.
    public static func search(
        client: PostgresClient, changes: ReadModelChangeFeed?, logger: Logger, environment: EnvironmentReader = EnvironmentReader()
    ) throws -> KnowledgeSearch {
        KnowledgeSearch(
            client: client, provider: try provider(environment: environment, forQueries: true), logger: logger,
            queryEmbeddings: try queryCache(environment: environment), results: try resultCache(changes: changes, environment: environment),
            resident: try residentIndex(changes: changes, environment: environment))
    }

    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// `forQueries`: the provider of a searcher, which embeds short queries, many at once
    /// (MiniLM then runs each pass on one thread, and concurrent queries share passes).
    public static func provider(
        environment: EnvironmentReader = EnvironmentReader(), client: HTTPClient = .shared, forQueries: Bool = false
    ) throws -> any EmbeddingProvider {
        func value(_ name: String) -> String? { environment.trimmed(name) }
        switch value("HEARTH_EMBEDDING_PROVIDER")?.lowercased() ?? "minilm" {
        case "minilm":
            // A searcher's concurrent queries share forward passes (see CoalescingEmbeddingProvider);
            // the embedding-worker batches its chunks itself.
            let path: EncoderKernelPath
            do {
                path = try EncoderKernelPath.forThisCPU(environment: environment)
            } catch {
                throw Invalid(description: "\(error)")
            }
            return forQueries
                ? CoalescingEmbeddingProvider(MiniLMEmbeddingProvider(threadsPerProduct: 1, kernelPath: path))
                : MiniLMEmbeddingProvider(kernelPath: path)
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
