import Foundation

public enum ModelPricesError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalid(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "model prices file \(path) cannot be read: \(reason)"
        case .invalid(let path, let reason): "model prices file \(path) is invalid: \(reason)"
        }
    }
}

/// Prices by `provider:model`. They live in a file rather than in code because providers change
/// prices more often than Hearth ships; `HEARTH_MODEL_PRICES_FILE` points at a replacement.
public struct ModelPrices: Sendable, Equatable {
    public private(set) var byModel: [String: ModelPrice]

    public init(_ byModel: [String: ModelPrice]) {
        self.byModel = byModel
    }

    public static func key(provider: String, model: String) -> String { "\(provider):\(model)" }

    public func price(provider: String, model: String) -> ModelPrice? {
        byModel[Self.key(provider: provider, model: model)]
    }

    public mutating func set(_ price: ModelPrice, provider: String, model: String) {
        byModel[Self.key(provider: provider, model: model)] = price
    }

    /// The file's shape: `{"models": {"openai:gpt-4o-mini": {"input_cents_per_1k": 0.015, ...}}}`.
    private struct File: Decodable {
        var models: [String: ModelPrice]
    }

    public static func load(from url: URL) throws -> ModelPrices {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ModelPricesError.unreadable(path: url.path, reason: "\(error)")
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw ModelPricesError.invalid(path: url.path, reason: "\(error)")
        }
        for (key, price) in file.models {
            guard key.contains(":") else {
                throw ModelPricesError.invalid(path: url.path, reason: "\(key) is not provider:model")
            }
            guard price.inputCentsPer1K >= 0, price.outputCentsPer1K >= 0,
                  price.inputCentsPer1K.isFinite, price.outputCentsPer1K.isFinite
            else { throw ModelPricesError.invalid(path: url.path, reason: "\(key) has a negative or non-finite price") }
        }
        return ModelPrices(file.models)
    }

    /// The prices shipped with Hearth (`Resources/model_prices.json`).
    public static func bundled() throws -> ModelPrices {
        try load(from: AssistResources.url("model_prices.json"))
    }
}
