import HearthEvents

/// How many portions a household eats, which scales recipe quantities.
///
/// Rule: each adult and each child aged 10 or over eats one portion; a child under 10 eats
/// half a portion. A household that lists nobody is cooked for as one portion, so a plan
/// never asks for zero food. A recipe for `servings` people is scaled by
/// `portions / servings` (a 4-serving recipe for 2 adults and a 6-year-old is scaled by
/// 2.5 / 4 = 0.625).
public struct HouseholdPortions: Codable, Sendable, Hashable {
    public static let youngChildAgeLimit = 10
    public static let youngChildPortion = 0.5

    public let adults: Int
    public let childAges: [Int]

    public init(adults: Int, childAges: [Int]) {
        self.adults = max(0, adults)
        self.childAges = childAges
    }

    public init(prefs: HouseholdPrefs) {
        self.init(adults: prefs.adults, childAges: prefs.kidsAges)
    }

    public var portions: Double {
        let children = childAges.reduce(0.0) { sum, age in
            sum + (age < Self.youngChildAgeLimit ? Self.youngChildPortion : 1)
        }
        return max(1, Double(adults) + children)
    }

    public var hasYoungChild: Bool {
        childAges.contains { $0 < Self.youngChildAgeLimit }
    }

    /// The factor to multiply a recipe's quantities by.
    public func scale(forServings servings: Int) -> Double {
        portions / Double(max(1, servings))
    }

    enum CodingKeys: String, CodingKey {
        case adults
        case childAges = "child_ages"
        case portions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            adults: try container.decode(Int.self, forKey: .adults),
            childAges: try container.decode([Int].self, forKey: .childAges))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(adults, forKey: .adults)
        try container.encode(childAges, forKey: .childAges)
        try container.encode(portions, forKey: .portions)
    }
}
