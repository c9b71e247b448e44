/// One chore on one day, given to one person.
public struct ChoreOccurrence: Codable, Sendable, Hashable {
    public let chore: String
    public let choreId: String
    public let assignee: String
    /// Local ISO 8601 date-time ("2025-03-03T18:00:00"), with the UTC offset when the
    /// request gave one ("2025-03-03T18:00:00+01:00").
    public let at: String
    public let date: CalendarDay
    public let minutes: Int
    public let effort: Int

    public init(chore: String, choreId: String, assignee: String, at: String, date: CalendarDay, minutes: Int, effort: Int) {
        self.chore = chore
        self.choreId = choreId
        self.assignee = assignee
        self.at = at
        self.date = date
        self.minutes = minutes
        self.effort = effort
    }

    /// effort × minutes, the weight used to balance the schedule.
    public var load: Int { effort * minutes }

    enum CodingKeys: String, CodingKey {
        case chore
        case choreId = "chore_id"
        case assignee, at, date, minutes, effort
    }
}
