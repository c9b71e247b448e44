/// A chore schedule request that cannot be scheduled as asked.
public enum ChoreSchedulingError: Error, Equatable, Sendable, CustomStringConvertible {
    case daysOutOfRange(requested: Int, allowed: ClosedRange<Int>)
    case invalidDueTime(String)
    case noMembers

    public var description: String {
        switch self {
        case let .daysOutOfRange(requested, allowed):
            "days must be between \(allowed.lowerBound) and \(allowed.upperBound), not \(requested)"
        case let .invalidDueTime(time):
            "due time must be HH:MM on a 24-hour clock, not \(time)"
        case .noMembers:
            "a chore schedule needs at least one household member"
        }
    }
}
