/// A chore template, as stored in `chores.json`.
public struct ChoreDefinition: Codable, Sendable, Hashable, Identifiable {
    public let id: String
    public let name: String
    /// The youngest age that can do it; adults can do every chore.
    public let minAge: Int
    public let minutes: Int
    public let weekdays: WeekdayMask
    /// 1 (light) to 3 (hard).
    public let effort: Int
    public let keywords: [String]

    public init(id: String, name: String, minAge: Int, minutes: Int, weekdays: WeekdayMask, effort: Int, keywords: [String]) {
        self.id = id
        self.name = name
        self.minAge = minAge
        self.minutes = minutes
        self.weekdays = weekdays
        self.effort = effort
        self.keywords = keywords
    }

    /// What doing it once weighs when balancing: effort × minutes.
    public var load: Int { effort * minutes }

    public func suits(_ member: HouseholdMember) -> Bool {
        member.isAdult || member.age >= minAge
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case minAge = "min_age"
        case minutes, weekdays, effort, keywords
    }
}
