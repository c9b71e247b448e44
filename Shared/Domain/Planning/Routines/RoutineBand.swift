/// Routine templates for an age range, as stored in `routines.json`.
public struct RoutineBand: Codable, Sendable, Hashable {
    public let minAge: Int
    public let maxAge: Int
    public let label: String
    public let morning: [RoutineStep]
    public let bedtime: [RoutineStep]

    public init(minAge: Int, maxAge: Int, label: String, morning: [RoutineStep], bedtime: [RoutineStep]) {
        self.minAge = minAge
        self.maxAge = maxAge
        self.label = label
        self.morning = morning
        self.bedtime = bedtime
    }

    public var ages: ClosedRange<Int> { minAge...maxAge }

    public func steps(for kind: RoutineKind) -> [RoutineStep] {
        switch kind {
        case .morning: morning
        case .bedtime: bedtime
        }
    }

    enum CodingKeys: String, CodingKey {
        case minAge = "min_age"
        case maxAge = "max_age"
        case label, morning, bedtime
    }
}
