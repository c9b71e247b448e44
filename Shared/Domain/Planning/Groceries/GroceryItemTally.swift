/// Running totals for one grocery item while a list is built, kept per dimension so amounts
/// in incompatible units are never added together by accident.
struct GroceryItemTally {
    let item: String
    let aisle: String
    /// Indexed by `MeasureUnit.Dimension.allCases` position.
    private(set) var amounts: [GroceryAmount?] = [nil, nil, nil]

    init(item: String, aisle: String) {
        self.item = item
        self.aisle = aisle
    }

    subscript(dimension: MeasureUnit.Dimension) -> GroceryAmount? {
        amounts[Self.slot(dimension)]
    }

    var dimensionCount: Int { amounts.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    mutating func add(_ quantity: Double, _ unit: MeasureUnit, recipe: String) {
        let slot = Self.slot(unit.dimension)
        if amounts[slot] == nil { amounts[slot] = GroceryAmount() }
        amounts[slot]!.add(quantity, unit, recipe: recipe)
    }

    /// Folds `dimension` into grams when the item is also weighed and `gramsPerBase` is
    /// known; otherwise leaves it as its own line.
    mutating func convertToMass(_ dimension: MeasureUnit.Dimension, gramsPerBase: Double?) {
        let slot = Self.slot(dimension), massSlot = Self.slot(.mass)
        guard let gramsPerBase, let amount = amounts[slot], amounts[massSlot] != nil else { return }
        amounts[massSlot]!.absorb(amount, factor: gramsPerBase)
        amounts[slot] = nil
    }

    private static func slot(_ dimension: MeasureUnit.Dimension) -> Int {
        switch dimension {
        case .mass: 0
        case .volume: 1
        case .count: 2
        }
    }
}
