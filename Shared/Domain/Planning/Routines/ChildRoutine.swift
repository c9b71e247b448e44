/// One child's morning or bedtime routine.
public struct ChildRoutine: Codable, Sendable, Hashable {
    /// "Morning routine", "Bedtime routine".
    public let name: String
    public let kind: RoutineKind
    public let child: String
    public let age: Int
    /// The age band the steps come from ("Toddler").
    public let band: String
    public let steps: [RoutineStep]

    public init(name: String, kind: RoutineKind, child: String, age: Int, band: String, steps: [RoutineStep]) {
        self.name = name
        self.kind = kind
        self.child = child
        self.age = age
        self.band = band
        self.steps = steps
    }

    public var totalMinutes: Int { steps.reduce(0) { $0 + $1.minutes } }
}
