/// A content file (recipes, allergen vocabulary, chores, routines) that cannot be trusted.
/// Planning refuses to run on half-valid content rather than guess, because a silently
/// dropped allergen label would be a safety bug.
public struct PlanningContentError: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    public let reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }
}
