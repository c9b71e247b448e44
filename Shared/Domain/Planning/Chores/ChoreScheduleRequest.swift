/// What to schedule: who shares the chores, which chores, over which days.
public struct ChoreScheduleRequest: Codable, Sendable, Hashable {
    public let members: [HouseholdMember]
    /// The user's words; chores named or described here are scheduled.
    public let goal: String?
    /// The household's own chore list (catalogue ids or names, or new chores by name), used
    /// when the goal names no chore.
    public let householdChores: [String]?
    public let days: Int
    public let startDate: CalendarDay
    /// Restricts every chore to these days (e.g. school days only), on top of each chore's
    /// own weekdays.
    public let activeDays: WeekdayMask?
    /// Local wall-clock time the chores are due, "HH:MM".
    public let dueTime: String
    /// The household's UTC offset in minutes, when known; the due date-times then carry it.
    public let utcOffsetMinutes: Int?

    /// After school and before dinner is when most family chores happen.
    public static let defaultDueTime = "18:00"

    public init(
        members: [HouseholdMember], goal: String? = nil, householdChores: [String]? = nil, days: Int,
        startDate: CalendarDay, activeDays: WeekdayMask? = nil, dueTime: String = Self.defaultDueTime,
        utcOffsetMinutes: Int? = nil
    ) {
        self.members = members
        self.goal = goal
        self.householdChores = householdChores
        self.days = days
        self.startDate = startDate
        self.activeDays = activeDays
        self.dueTime = dueTime
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    enum CodingKeys: String, CodingKey {
        case members, goal
        case householdChores = "household_chores"
        case days
        case startDate = "start_date"
        case activeDays = "active_days"
        case dueTime = "due_time"
        case utcOffsetMinutes = "utc_offset_minutes"
    }
}
