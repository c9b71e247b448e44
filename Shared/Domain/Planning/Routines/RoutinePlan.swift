/// Routines for a household's children.
public struct RoutinePlan: Codable, Sendable, Hashable {
    /// Per child in the order given, morning then bedtime.
    public let routines: [ChildRoutine]
    /// Members no band covers (adults, or ages beyond the content), named so nobody is
    /// silently left out.
    public let withoutRoutine: [HouseholdMember]

    public init(routines: [ChildRoutine], withoutRoutine: [HouseholdMember]) {
        self.routines = routines
        self.withoutRoutine = withoutRoutine
    }

    enum CodingKeys: String, CodingKey {
        case routines
        case withoutRoutine = "without_routine"
    }
}
