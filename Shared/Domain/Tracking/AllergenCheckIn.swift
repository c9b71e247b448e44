import Foundation
import HearthEvents

/// The allergen check-in loop's shared rules: which allergens call for one, and the id of the
/// check-in of a food log (the gateway lists it and takes the answer under that id, the notifier
/// sends the reminder under it).
public enum AllergenCheckIn {
    /// The allergens a first taste is watched for (canonical names of the allergen vocabulary).
    public static let highRiskAllergens: Set<String> = [
        "peanut", "egg", "milk", "tree_nut", "sesame", "soy", "wheat", "fish", "shellfish",
    ]

    public static let defaultDelayMinutes = 120
    /// A food logged this long after it was tried gets no check-in: the moment has passed.
    public static let horizon: TimeInterval = 24 * 3600
    public static let delayRange = 60...240

    private static let namespace = UUID(uuidString: "6f1d7c1e-2a53-4c39-9d55-5b0f3c6a9e41")!

    public static func id(forFoodLog logId: UUID) -> UUID {
        NameBasedUUID.make(namespace: namespace, name: "allergen-check-in:\(logId.uuidString.lowercased())")
    }

    /// The high-risk allergens of a food log, in a stable order.
    public static func watched(in detail: FoodDetail) -> [String] {
        detail.allergens.filter(highRiskAllergens.contains).sorted()
    }
}
