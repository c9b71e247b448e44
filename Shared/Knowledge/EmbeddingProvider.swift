import Foundation

/// Which model made a vector. Stored with every chunk: searches compare only vectors of the
/// active model, and a change of model makes the worker embed everything again.
public struct EmbeddingModel: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var dimension: Int

    public init(name: String, dimension: Int) {
        self.name = name
        self.dimension = dimension
    }

    public var description: String { "\(name)/\(dimension)" }
}

/// Turns texts into unit-length vectors, one per text, in order.
public protocol EmbeddingProvider: Sendable {
    var model: EmbeddingModel { get }
    func embed(_ texts: [String]) async throws -> [[Float]]
}

public struct EmbeddingProviderError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// Worth trying again later (network trouble, rate limits, a 5xx).
    public let retriable: Bool

    public init(_ message: String, retriable: Bool) {
        self.message = message
        self.retriable = retriable
    }

    public var description: String { message }
}

/// The one dimension the `document_chunks.embedding` column holds.
public enum EmbeddingIndex {
    public static let dimension = 384
}

extension Array where Element == Float {
    /// pgvector's text form, `[0.1,0.2,...]`.
    public var pgvectorLiteral: String {
        "[" + map { String($0) }.joined(separator: ",") + "]"
    }

    /// The vector scaled to length 1 (a zero vector stays as it is), so that a dot product of two
    /// is their cosine, as pgvector's `<=>` reckons it.
    public var unitLength: [Float] {
        let norm = reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? map { $0 / norm } : self
    }

    /// The dot product, in Double: the cosine when both are of unit length.
    public func dot(_ other: [Float]) -> Double {
        Double(zip(self, other).reduce(0) { $0 + $1.0 * $1.1 })
    }
}

extension Duration {
    /// Whole nanoseconds, for swift-metrics timers.
    public var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
