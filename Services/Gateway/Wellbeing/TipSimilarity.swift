import Foundation
import HearthDomain
import HearthKnowledge
import Logging
import Synchronization

/// How close each tip is in meaning to what a user is dealing with, by the same embeddings as
/// search (`HEARTH_EMBEDDING_PROVIDER`): the tips are embedded once per process, the query is the
/// user's trigger words and interests — never their own words, which may be private enough
/// (a note about a crisis) that they must not reach an embedding API.
final class TipSimilarity: Sendable {
    private let provider: any EmbeddingProvider
    private let tips: TipCatalogue
    private let logger: Logger
    private let vectors = Mutex<[String: [Float]]?>(nil)

    init(provider: any EmbeddingProvider, tips: TipCatalogue, logger: Logger) {
        self.provider = provider
        self.tips = tips
        self.logger = logger
    }

    /// Tip id → cosine similarity clamped to 0…1; empty when there is nothing to compare or the
    /// embedder fails (the ranking then stands on triggers and interests alone).
    func scores(triggers: [WellbeingTrigger], interests: [WellbeingInterest]) async -> [String: Double] {
        let words = triggers.map { $0.rawValue.replacingOccurrences(of: "_", with: " ") } + interests.map(\.displayName)
        guard !words.isEmpty else { return [:] }
        do {
            let tipVectors = try await tipVectors()
            guard let query = try await provider.embed([words.joined(separator: ", ")]).first else { return [:] }
            var scores: [String: Double] = [:]
            for (id, vector) in tipVectors { scores[id] = max(0, Self.cosine(query, vector)) }
            return scores
        } catch {
            logger.warning("tip similarity unavailable", metadata: ["error": "\(String(describing: error).prefix(200))"])
            return [:]
        }
    }

    private func tipVectors() async throws -> [String: [Float]] {
        if let ready = vectors.withLock({ $0 }) { return ready }
        let texts = tips.tips.map { "\($0.title). \($0.body)" }
        let embedded = try await provider.embed(texts)
        guard embedded.count == tips.tips.count else { throw EmbeddingProviderError("tip embeddings missing", retriable: true) }
        let ready = Dictionary(uniqueKeysWithValues: zip(tips.tips.map(\.id), embedded))
        vectors.withLock { $0 = ready }
        return ready
    }

    static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var dot = 0.0, normA = 0.0, normB = 0.0
        for index in a.indices {
            dot += Double(a[index]) * Double(b[index])
            normA += Double(a[index]) * Double(a[index])
            normB += Double(b[index]) * Double(b[index])
        }
        return normA > 0 && normB > 0 ? dot / (normA.squareRoot() * normB.squareRoot()) : 0
    }
}
