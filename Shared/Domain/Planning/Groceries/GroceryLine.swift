/// One item to buy, with the total across the plan and the recipes that need it.
public struct GroceryLine: Codable, Sendable, Hashable {
    public let item: String
    public let quantity: Double
    public let unit: MeasureUnit
    /// Ids of the recipes this line covers, sorted.
    public let recipes: [String]

    public init(item: String, quantity: Double, unit: MeasureUnit, recipes: [String]) {
        self.item = item
        self.quantity = quantity
        self.unit = unit
        self.recipes = recipes
    }

    /// The quantity in the dimension's base unit (grams, millilitres, pieces).
    public var baseQuantity: Double { quantity * unit.baseAmount }
}
