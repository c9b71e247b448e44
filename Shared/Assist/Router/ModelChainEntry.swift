import Foundation

/// One element of a `HEARTH_MODEL_CHAIN_*` list: `openai:gpt-4o-mini`, `anthropic:claude-3-5-haiku-latest`,
/// `local` (or `local:offline-v1`).
public struct ModelChainEntry: Sendable, Equatable, CustomStringConvertible {
    public var provider: String
    public var model: String

    public init(provider: String, model: String) {
        self.provider = provider
        self.model = model
    }

    public var description: String { ModelPrices.key(provider: provider, model: model) }

    /// Parses a comma list; blanks between commas are ignored.
    public static func parseList(_ list: String, variable: String) throws -> [ModelChainEntry] {
        try list.split(separator: ",").compactMap { raw -> ModelChainEntry? in
            let item = raw.trimmingCharacters(in: .whitespaces)
            guard !item.isEmpty else { return nil }
            let parts = item.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let provider = parts[0].lowercased()
            let model = parts.count > 1 ? parts[1] : ""
            switch provider {
            case "local":
                return ModelChainEntry(provider: provider, model: model.isEmpty ? LocalModelProvider.defaultModel : model)
            case "openai", "anthropic":
                guard !model.isEmpty else { throw ModelConfigurationError.missingModel(variable: variable, entry: item) }
                return ModelChainEntry(provider: provider, model: model)
            default:
                throw ModelConfigurationError.unknownProvider(variable: variable, entry: item)
            }
        }
    }
}
