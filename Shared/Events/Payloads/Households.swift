import Foundation

/// The planning preferences of a household. Field names follow the seed's wire format.
public struct HouseholdPrefs: Codable, Sendable, Equatable, Hashable {
    public var adults: Int
    public var kidsAges: [Int]
    public var allergies: [String]
    public var cuisines: [String]

    public init(adults: Int, kidsAges: [Int], allergies: [String], cuisines: [String]) {
        self.adults = adults
        self.kidsAges = kidsAges
        self.allergies = allergies
        self.cuisines = cuisines
    }
}

/// `household.upserted` v1: a household was created or its name and preferences replaced.
public struct HouseholdUpserted: EventPayload {
    public static let eventType = "household.upserted"
    public static let version = 1
    public static let topic = Topic.households

    public var householdId: UUID
    /// The household's version after this change, as the gateway answered it to the client.
    public var householdVersion: Int
    public var name: String?
    public var prefs: HouseholdPrefs
    /// The user who made the change, when known.
    public var userId: String?

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case householdVersion = "household_version"
        case name, prefs
        case userId = "user_id"
    }

    public init(householdId: UUID, householdVersion: Int, name: String?, prefs: HouseholdPrefs, userId: String?) {
        self.householdId = householdId
        self.householdVersion = householdVersion
        self.name = name
        self.prefs = prefs
        self.userId = userId
    }
}
