/// One grocery item's running total in one dimension, in its base unit (g, ml, piece).
struct GroceryAmount {
    var base: Double = 0
    var onlySpoonMeasures = true
    var onlyPinches = true
    /// In first-use order, without repeats.
    var recipes: [String] = []

    mutating func add(_ quantity: Double, _ unit: MeasureUnit, recipe: String) {
        base += quantity * unit.baseAmount
        onlySpoonMeasures = onlySpoonMeasures && unit.isSpoonMeasure
        onlyPinches = onlyPinches && unit == .pinch
        if !recipes.contains(recipe) { recipes.append(recipe) }
    }

    /// Takes in `other`, measured in another dimension, at `factor` of this dimension's
    /// base unit per base unit of `other`.
    mutating func absorb(_ other: GroceryAmount, factor: Double) {
        base += other.base * factor
        onlySpoonMeasures = onlySpoonMeasures && other.onlySpoonMeasures
        onlyPinches = onlyPinches && other.onlyPinches
        for recipe in other.recipes where !recipes.contains(recipe) { recipes.append(recipe) }
    }
}
