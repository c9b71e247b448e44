import Foundation

/// Builds one shopping list for a set of planned recipes.
///
/// Each recipe's quantities are first scaled to the household (`HouseholdPortions`), then
/// merged into one line per item and dimension:
/// - mass: g and kg add up in grams; shown in g, or in kg from 1000 g (to 0.01 kg);
/// - volume: ml, l, tsp (5 ml), tbsp (15 ml), cup (240 ml) and pinch (1/16 tsp) add up in
///   millilitres; shown in ml, or in l from 1000 ml (to 0.01 l). When every amount of the
///   item is a spoon measure and the total is under 120 ml (8 tbsp) it stays in spoons, as
///   a cook would measure it: tbsp (to ½) from 1 tbsp, else tsp (to ¼), or pinches when it
///   is only ever pinches;
/// - count: pieces, shown whole.
/// An item measured in two dimensions is converted into grams only when
/// `IngredientConversions` knows its density or piece weight (rice in cups and grams);
/// otherwise it gets a line per dimension, each naming its own recipes.
/// Every total is rounded up, so the list never covers less than the recipes need.
public struct GroceryListBuilder: Sendable {
    public static let spoonDisplayLimit = 120.0

    public let catalogue: RecipeCatalogue
    public let conversions: IngredientConversions
    /// Merge keys of each catalogue recipe's ingredients, parallel to `catalogue.recipes`.
    private let itemKeys: [[String]]

    public init(catalogue: RecipeCatalogue, conversions: IngredientConversions = .standard) {
        self.catalogue = catalogue
        self.conversions = conversions
        itemKeys = catalogue.recipes.map(Self.itemKeys)
    }

    /// The list for a plan, scaled to the plan's household. Ids no longer in the catalogue
    /// are skipped.
    public func build(for plan: MealPlan) -> GroceryList {
        let positions = plan.recipeIds.compactMap(catalogue.position(ofId:))
        return build(positions.map { catalogue.recipes[$0] }, itemKeys: positions.map { itemKeys[$0] }, household: plan.household)
    }

    public func build(recipes: [Recipe], household: HouseholdPortions) -> GroceryList {
        build(recipes, itemKeys: recipes.map(Self.itemKeys), household: household)
    }

    /// Items merge by name, ignoring case and surrounding spaces.
    private static func itemKeys(_ recipe: Recipe) -> [String] {
        recipe.ingredients.map { $0.item.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// - Parameter itemKeys: per recipe, the merge key of each ingredient.
    private func build(_ recipes: [Recipe], itemKeys: [[String]], household: HouseholdPortions) -> GroceryList {
        var tallies: [String: GroceryItemTally] = [:]
        // Index loops rather than zip: this runs for every plan, and pairing sequences is
        // slow in unoptimised test builds.
        for recipeIndex in recipes.indices {
            let recipe = recipes[recipeIndex]
            let keys = itemKeys[recipeIndex]
            let scale = household.scale(forServings: recipe.servings)
            for ingredientIndex in recipe.ingredients.indices {
                let ingredient = recipe.ingredients[ingredientIndex]
                let key = keys[ingredientIndex]
                // Mutated in place, so the running totals are not copied for every ingredient.
                tallies[key, default: GroceryItemTally(item: key, aisle: ingredient.aisle.lowercased())]
                    .add(ingredient.quantity * scale, ingredient.unit, recipe: recipe.id)
            }
        }

        var linesByAisle: [String: [GroceryLine]] = [:]
        for key in tallies.keys.sorted() {
            var tally = tallies[key]!
            if tally.dimensionCount > 1 {
                tally.convertToMass(.volume, gramsPerBase: conversions.gramsPerMillilitre(of: key))
                tally.convertToMass(.count, gramsPerBase: conversions.gramsPerPiece(of: key))
            }
            for dimension in MeasureUnit.Dimension.allCases {
                guard let amount = tally[dimension] else { continue }
                let (quantity, unit) = Self.presentation(of: amount, in: dimension)
                linesByAisle[tally.aisle, default: []].append(
                    GroceryLine(item: tally.item, quantity: quantity, unit: unit, recipes: amount.recipes.sorted()))
            }
        }
        return GroceryList(aisles: GroceryAisleOrder.sorted(Array(linesByAisle.keys)).map {
            GroceryAisle(name: $0, lines: linesByAisle[$0]!)
        })
    }

    private static func presentation(of amount: GroceryAmount, in dimension: MeasureUnit.Dimension) -> (Double, MeasureUnit) {
        let base = amount.base
        switch dimension {
        case .mass:
            if QuantityRounding.roundUp(base, stepsPerUnit: 1) >= 1000 {
                return (QuantityRounding.roundUp(base / 1000, stepsPerUnit: 100), .kilogram)
            }
            return (QuantityRounding.roundUp(base, stepsPerUnit: base < 10 ? 2 : 1), .gram)
        case .volume:
            if amount.onlySpoonMeasures && base < spoonDisplayLimit {
                if amount.onlyPinches {
                    return (QuantityRounding.roundUp(base / MeasureUnit.pinch.baseAmount, stepsPerUnit: 1), .pinch)
                }
                if base >= MeasureUnit.tablespoon.baseAmount {
                    return (QuantityRounding.roundUp(base / MeasureUnit.tablespoon.baseAmount, stepsPerUnit: 2), .tablespoon)
                }
                return (QuantityRounding.roundUp(base / MeasureUnit.teaspoon.baseAmount, stepsPerUnit: 4), .teaspoon)
            }
            if QuantityRounding.roundUp(base, stepsPerUnit: 1) >= 1000 {
                return (QuantityRounding.roundUp(base / 1000, stepsPerUnit: 100), .litre)
            }
            return (QuantityRounding.roundUp(base, stepsPerUnit: 1), .millilitre)
        case .count:
            return (QuantityRounding.roundUp(base, stepsPerUnit: 1), .piece)
        }
    }
}
