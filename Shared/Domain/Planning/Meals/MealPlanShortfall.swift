/// Said when a plan covers fewer days than asked because there are not enough safe,
/// distinct recipes. The planner never fills the gap by repeating a dish or loosening the
/// allergen rule.
public struct MealPlanShortfall: Codable, Sendable, Hashable {
    public let requestedDays: Int
    public let plannedDays: Int
    public let note: String

    public init(requestedDays: Int, plannedDays: Int, note: String) {
        self.requestedDays = requestedDays
        self.plannedDays = plannedDays
        self.note = note
    }

    enum CodingKeys: String, CodingKey {
        case requestedDays = "requested_days"
        case plannedDays = "planned_days"
        case note
    }
}
