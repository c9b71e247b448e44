import Foundation
import HearthEvents

/// The prompts of the two-phase approach (seed 000): a focused, low-temperature planning call
/// that returns a short query, and a moderate-temperature synthesis call that writes the text.
enum Prompts {
    static let planningMaxTokens = 32
    static let planningTemperature = 0.1
    static let synthesisMaxTokens = 220
    static let synthesisTemperature = 0.3
    static let synthesisSystem = "You write short, warm, practical family plans. Never give medical advice."

    static func planningSystem(_ mode: AssistMode) -> String {
        switch mode {
        case .meals: "You are a meal planner for a family."
        case .chores: "You plan household chores for a family."
        case .routines: "You build age-appropriate daily routines for children."
        }
    }

    static func planning(_ input: RunInput) -> String {
        let what = switch input.mode {
        case .meals: #"Return a short search query string only, suitable for recipe retrieval (e.g., "kid friendly dinners no nuts")."#
        case .chores: #"Return only the chores to schedule, as a short comma-separated list (e.g., "dishes, laundry, tidy toys")."#
        case .routines: #"Return only a short focus for the routines (e.g., "calm bedtime, quick school mornings")."#
        }
        return "Context: \(profile(input.prefs))\nUser goal: \(input.goal)\n\(what)"
    }

    /// The household preferences as compact JSON, the seed's context injection.
    static func profile(_ prefs: HouseholdPrefs) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(prefs), as: UTF8.self)) ?? "{}"
    }
}
