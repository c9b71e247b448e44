/// Chores spread over days and shared across a household.
public struct ChoreSchedule: Codable, Sendable, Hashable {
    public let startDate: CalendarDay
    public let days: Int
    public let source: ChoreSelectionSource
    public let chores: [ChoreDefinition]
    /// By date, then in the order they were handed out.
    public let occurrences: [ChoreOccurrence]
    /// One per member, in the request's order.
    public let loads: [MemberChoreLoad]
    public let unassignable: [UnassignableChore]

    public init(
        startDate: CalendarDay, days: Int, source: ChoreSelectionSource, chores: [ChoreDefinition],
        occurrences: [ChoreOccurrence], loads: [MemberChoreLoad], unassignable: [UnassignableChore]
    ) {
        self.startDate = startDate
        self.days = days
        self.source = source
        self.chores = chores
        self.occurrences = occurrences
        self.loads = loads
        self.unassignable = unassignable
    }

    enum CodingKeys: String, CodingKey {
        case startDate = "start_date"
        case days, source, chores, occurrences, loads, unassignable
    }
}
