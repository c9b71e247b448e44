import Foundation
import HearthDomain
import HearthEvents

/// `GET /v1/activities/suggestions`: the live activities that fit the tags, none the user did in
/// the last week, ranked towards their favourites' tags (a shared category counts most, then
/// energy, then each shared context), ties broken by a hash of the user, the day and the
/// activity, so the same day gives the same list and the next day another.
enum ActivitySuggestions {
    static let count = 5
    static let recentDays = 7

    static func rank(
        rows: [ActivityRow], fitting query: ActivityFeedQuery, favourites: [ActivityContent], doneRecently: Set<String>, user: UUID,
        day: CalendarDay
    ) -> [(row: ActivityRow, score: Double)] {
        var categories: [String: Int] = [:], energies: [String: Int] = [:], contexts: [String: Int] = [:]
        for favourite in favourites {
            categories[favourite.category, default: 0] += 1
            energies[favourite.energy, default: 0] += 1
            for context in favourite.contexts { contexts[context, default: 0] += 1 }
        }
        let total = Double(max(favourites.count, 1))
        let seed = "\(user.uuidString.lowercased())/\(day.isoDate)"
        return rows.filter { !$0.withdrawn && !doneRecently.contains($0.id) && query.matches($0.content) }
            .map { row -> (ActivityRow, Double, UInt64) in
                let content = row.content
                let lean = Double(categories[content.category] ?? 0) / total * 1.0
                    + Double(energies[content.energy] ?? 0) / total * 0.4
                    + content.contexts.map { Double(contexts[$0] ?? 0) / total * 0.2 }.reduce(0, +)
                return (row, (lean * 1000).rounded() / 1000, StableHash.fnv1a("\(seed)/\(row.id)"))
            }
            .sorted { ($0.1, $0.2, $0.0.id) > ($1.1, $1.2, $1.0.id) }
            .prefix(count)
            .map { ($0.0, $0.1) }
    }
}
