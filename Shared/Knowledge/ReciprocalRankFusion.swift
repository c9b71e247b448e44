/// Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): an item's fused score is the sum
/// over the rankings that contain it of `weight / (k + rank)`, rank starting at 1. It needs no score
/// calibration between the rankings, which is why it suits cosine distances beside text ranks.
public enum ReciprocalRankFusion {
    public struct Fused: Sendable, Equatable {
        public var id: String
        public var score: Double
    }

    /// Fuses rankings (best first; an id repeated within one ranking counts at its first place).
    /// Ties are broken by the best single rank, then by id, so the order is deterministic.
    /// `weights` scale each ranking's contributions (default 1 each).
    public static func fuse(_ rankings: [[String]], weights: [Double]? = nil, k: Double = 60) -> [Fused] {
        precondition(weights == nil || weights!.count == rankings.count, "one weight per ranking")
        var scores: [String: Double] = [:]
        var bestRank: [String: Int] = [:]
        for (index, ranking) in rankings.enumerated() {
            let weight = weights?[index] ?? 1
            var seen: Set<String> = []
            for (offset, id) in ranking.enumerated() where seen.insert(id).inserted {
                let rank = offset + 1
                scores[id, default: 0] += weight / (k + Double(rank))
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
