/// One line of a recipe's ingredient list, as stored in `recipes.json`.
public struct RecipeIngredient: Codable, Sendable, Hashable {
    public let item: String
    public let quantity: Double
    public let unit: MeasureUnit
    public let aisle: String
    /// Canonical allergen keys the catalogue labels this ingredient with.
    public let allergens: [String]

    public init(item: String, quantity: Double, unit: MeasureUnit, aisle: String, allergens: [String]) {
        self.item = item
        self.quantity = quantity
        self.unit = unit
        self.aisle = aisle
        self.allergens = allergens
    }
}
