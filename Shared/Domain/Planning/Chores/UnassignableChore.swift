/// A chosen chore nobody in the household is old enough for, left out of the schedule
/// rather than given to someone too young.
public struct UnassignableChore: Codable, Sendable, Hashable {
    public let chore: String
    public let minAge: Int

    public init(chore: String, minAge: Int) {
        self.chore = chore
        self.minAge = minAge
    }

    enum CodingKeys: String, CodingKey {
        case chore
        case minAge = "min_age"
    }
}
