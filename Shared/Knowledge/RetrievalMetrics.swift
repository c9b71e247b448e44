import Foundation

/// Standard ranking measures over one query: `ranked` is what a search answered (best first),
/// `relevant` what a person labelled as right. Binary relevance throughout.
public enum RetrievalMetrics {
    /// Share of the relevant items found in the first `k`.
    public static func recall(at k: Int, ranked: [String], relevant: Set<String>) -> Double {
        guard !relevant.isEmpty else { return 0 }
        return Double(Set(ranked.prefix(k)).intersection(relevant).count) / Double(relevant.count)
    }

    /// 1 / rank of the first relevant item, 0 when none is returned.
    public static func reciprocalRank(ranked: [String], relevant: Set<String>) -> Double {
        guard let index = ranked.firstIndex(where: relevant.contains) else { return 0 }
        return 1 / Double(index + 1)
    }

    /// DCG of the first `k` over the DCG of an ideal ranking (all relevant items first).
    public static func ndcg(at k: Int, ranked: [String], relevant: Set<String>) -> Double {
        func gain(_ position: Int) -> Double { 1 / log2(Double(position + 2)) }
        var seen: Set<String> = []
        var dcg = 0.0
        for (position, id) in ranked.prefix(k).enumerated() where relevant.contains(id) && seen.insert(id).inserted {
            dcg += gain(position)
        }
        let ideal = (0..<min(k, relevant.count)).reduce(0.0) { $0 + gain($1) }
        return ideal == 0 ? 0 : dcg / ideal
    }
}
