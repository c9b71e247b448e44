/// How much of a schedule one person carries.
public struct MemberChoreLoad: Codable, Sendable, Hashable {
    public let name: String
    public let age: Int
    public let occurrences: Int
    public let minutes: Int
    /// Sum of effort × minutes.
    public let load: Int

    public init(name: String, age: Int, occurrences: Int, minutes: Int, load: Int) {
        self.name = name
        self.age = age
        self.occurrences = occurrences
        self.minutes = minutes
        self.load = load
    }
}
