/// Which days of the week something happens, Monday first. Encodes as seven booleans, the
/// shape `chores.json` uses.
public struct WeekdayMask: Codable, Sendable, Hashable {
    public let days: [Bool]

    public init?(_ days: [Bool]) {
        guard days.count == 7 else { return nil }
        self.days = days
    }

    public init(_ weekdays: Set<Weekday>) {
        days = Weekday.allCases.map(weekdays.contains)
    }

    public static let everyDay = WeekdayMask(Set(Weekday.allCases))
    public static let schoolDays = WeekdayMask([.monday, .tuesday, .wednesday, .thursday, .friday])
    public static let weekend = WeekdayMask([.saturday, .sunday])

    public func contains(_ weekday: Weekday) -> Bool { days[weekday.rawValue] }

    public func intersection(_ other: WeekdayMask) -> WeekdayMask {
        WeekdayMask(Set(Weekday.allCases.filter { contains($0) && other.contains($0) }))
    }

    public var isEmpty: Bool { !days.contains(true) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let days = try container.decode([Bool].self)
        guard let mask = WeekdayMask(days) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a weekday mask needs 7 booleans, Monday first; got \(days.count)")
        }
        self = mask
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(days)
    }
}
