/// One step of a routine.
public struct RoutineStep: Codable, Sendable, Hashable {
    public let title: String
    public let minutes: Int

    public init(title: String, minutes: Int) {
        self.title = title
        self.minutes = minutes
    }
}
