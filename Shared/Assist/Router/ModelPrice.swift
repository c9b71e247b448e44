/// A model's list price in US cents per 1,000 tokens, input and output priced separately.
public struct ModelPrice: Sendable, Codable, Equatable {
    public var inputCentsPer1K: Double
    public var outputCentsPer1K: Double

    public init(inputCentsPer1K: Double, outputCentsPer1K: Double) {
        self.inputCentsPer1K = inputCentsPer1K
        self.outputCentsPer1K = outputCentsPer1K
    }

    public static let free = ModelPrice(inputCentsPer1K: 0, outputCentsPer1K: 0)

    public func cents(inputTokens: Int, outputTokens: Int) -> Double {
        (Double(inputTokens) * inputCentsPer1K + Double(outputTokens) * outputCentsPer1K) / 1000
    }

    enum CodingKeys: String, CodingKey {
        case inputCentsPer1K = "input_cents_per_1k"
        case outputCentsPer1K = "output_cents_per_1k"
    }
}
