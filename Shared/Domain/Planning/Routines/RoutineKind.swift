/// The two daily routines a child gets.
public enum RoutineKind: String, Codable, Sendable, CaseIterable {
    case morning, bedtime

    /// "Morning routine", "Bedtime routine".
    public var routineName: String {
        switch self {
        case .morning: "Morning routine"
        case .bedtime: "Bedtime routine"
        }
    }
}
