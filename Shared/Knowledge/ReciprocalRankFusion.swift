/// Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): an item's fused score is the sum
/// over the rankings that contain it of `1 / (k + rank)`, rank starting at 1. It needs no score
/// calibration between the rankings, which is why it suits cosine distances beside text ranks.
public enum ReciprocalRankFusion {
    public struct Fused: Sendable, Equatable {
        public var id: String
        public var score: Double
    }

    /// Fuses rankings (best first; an id repeated within one ranking counts at its first place).
    /// Ties are broken by the best single rank, then by id, so the order is deterministic.
    public static func fuse(_ rankings: [[String]], k: Double = 60) -> [Fused] {
        var scores: [String: Double] = [:]
        var bestRank: [String: Int] = [:]
        for ranking in rankings {
            var seen: Set<String> = []
            for (offset, id) in ranking.enumerated() where seen.insert(id).inserted {
                let rank = offset + 1
                scores[id, default: 0] += 1 / (k + Double(rank))
                bestRank[id] = min(bestRank[id] ?? .max, rank)
            }
        }
        return scores.map { Fused(id: $0.key, score: $0.value) }.sorted { lhs, rhs in
            if lhs.score != rhs.score { return lhs.score > rhs.score }
            let (left, right) = (bestRank[lhs.id]!, bestRank[rhs.id]!)
            return left != right ? left < right : lhs.id < rhs.id
        }
    }
}
