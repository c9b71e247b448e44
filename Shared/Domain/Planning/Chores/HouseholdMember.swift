/// A person who can take on chores or follow a routine.
public struct HouseholdMember: Codable, Sendable, Hashable {
    public static let adultAge = 18

    public let name: String
    public let age: Int

    public init(name: String, age: Int) {
        self.name = name
        self.age = age
    }

    public var isAdult: Bool { age >= Self.adultAge }
}
