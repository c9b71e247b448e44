/// The order aisles appear in: a typical walk through a supermarket, with frozen food last
/// so it stays cold. Aisles not listed follow, alphabetically.
public enum GroceryAisleOrder {
    public static let known = ["produce", "bakery", "meat", "seafood", "dairy", "eggs", "pantry", "international", "spices", "frozen"]

    public static func sorted(_ aisles: [String]) -> [String] {
        aisles.sorted { lhs, rhs in
            switch (known.firstIndex(of: lhs), known.firstIndex(of: rhs)) {
            case let (left?, right?): left < right
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): lhs < rhs
            }
        }
    }
}
