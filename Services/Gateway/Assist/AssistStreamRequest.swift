import Foundation
import HearthDomain
import HearthRuntime

/// Body of `POST /v1/assist/stream`. Text fields are read as strings and checked here, so every
/// 400 names its field.
struct AssistStreamRequest: Decodable {
    var goal: String
    var mode: String
    var householdId: String?
    var days: Int?
    var startDate: String?

    enum CodingKeys: String, CodingKey {
        case goal, mode
        case householdId = "household_id"
        case days
        case startDate = "start_date"
    }

    static let allowedDays = 1...14
    static let defaultDays = 7
    static let maxGoalLength = 2000
    static let modes = ["meals", "chores", "routines"]

    struct Validated: Sendable {
        var goal: String
        var mode: String
        var householdId: UUID?
        var days: Int
        var startDate: CalendarDay
    }

    /// `today` is the default first day (UTC), passed in so the rule stays testable.
    func validated(today: CalendarDay) throws -> Validated {
        let goal = goal.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !goal.isEmpty else { throw APIError.invalid("goal", "goal must not be empty") }
        guard goal.unicodeScalars.count <= Self.maxGoalLength else {
            throw APIError.invalid("goal", "goal must be at most \(Self.maxGoalLength) characters")
        }
        guard Self.modes.contains(mode) else {
            throw APIError.invalid("mode", "mode must be one of \(Self.modes.joined(separator: ", "))")
        }
        var household: UUID?
        if let text = householdId {
            guard let id = UUID(uuidString: text) else { throw APIError.invalid("household_id", "household_id must be a UUID") }
            household = id
        }
        let days = days ?? Self.defaultDays
        guard Self.allowedDays.contains(days) else {
            throw APIError.invalid("days", "days must be a whole number in \(Self.allowedDays.lowerBound)...\(Self.allowedDays.upperBound)")
        }
        var start = today
        if let text = startDate {
            guard let day = CalendarDay(isoDate: text) else { throw APIError.invalid("start_date", "start_date must be a date, YYYY-MM-DD") }
            start = day
        }
        return Validated(goal: goal, mode: mode, householdId: household, days: days, startDate: start)
    }
}
