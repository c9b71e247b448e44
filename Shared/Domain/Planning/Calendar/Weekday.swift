/// Days of the week, Monday first, matching the order of chore weekday masks.
public enum Weekday: Int, CaseIterable, Codable, Sendable, Comparable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// "Mon", "Tue", …
    public var shortName: String {
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][rawValue]
    }

    public var name: String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][rawValue]
    }
}
