import Foundation
import HearthEvents

/// What the planning phase answers when no model is reachable (the `local` provider): built from
/// the goal and the household only, so the same request always retrieves the same recipes.
enum OfflineQuery {
    /// The goal, the household's cuisines, and "kid friendly" when there are children. Allergies
    /// stay out: they are enforced by filtering, never by search words.
    static func meals(goal: String, prefs: HouseholdPrefs) -> String {
        var parts = [goal.trimmingCharacters(in: .whitespacesAndNewlines)]
        if !prefs.cuisines.isEmpty { parts.append(prefs.cuisines.joined(separator: " ")) }
        if !prefs.kidsAges.isEmpty { parts.append("kid friendly") }
        return parts.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Chores are picked from the goal's own words.
    static func chores(goal: String) -> String {
        goal.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The goal and the children's ages.
    static func routines(goal: String, prefs: HouseholdPrefs) -> String {
        let ages = prefs.kidsAges.map(String.init).joined(separator: ", ")
        let goal = goal.trimmingCharacters(in: .whitespacesAndNewlines)
        return ages.isEmpty ? goal : "\(goal) (ages \(ages))"
    }
}
