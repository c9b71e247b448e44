import AsyncHTTPClient
import Foundation

/// Which provider embeds, from the environment. The embedding-worker and every searcher (gateway,
/// assist-orchestrator, `hearthctl eval`) must read the same settings: searches only compare
/// vectors of the active model.
///
/// - `HEARTH_EMBEDDING_PROVIDER`: `minilm` (default) or `openai`
/// - `HEARTH_OPENAI_API_KEY`, `HEARTH_OPENAI_BASE_URL` (default https://api.openai.com),
///   `HEARTH_OPENAI_EMBEDDING_MODEL` (default text-embedding-3-small): for `openai`
/// - `HEARTH_MINILM_DIR`: for `minilm` (see `MiniLMEmbedder.locateModelDirectory`)
public enum EmbeddingSettings {
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
