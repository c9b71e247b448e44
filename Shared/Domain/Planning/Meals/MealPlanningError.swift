/// A meal plan request that cannot be planned as asked.
public enum MealPlanningError: Error, Equatable, Sendable, CustomStringConvertible {
    case daysOutOfRange(requested: Int, allowed: ClosedRange<Int>)

    public var description: String {
        switch self {
        case let .daysOutOfRange(requested, allowed):
            "days must be between \(allowed.lowerBound) and \(allowed.upperBound), not \(requested)"
        }
    }
}
