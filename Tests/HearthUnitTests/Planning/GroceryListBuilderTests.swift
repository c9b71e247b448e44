import Foundation
import HearthDomain
import Testing

@Suite struct GroceryListBuilderTests {
    struct Use {
        let item: String
        let quantity: Double
        let unit: MeasureUnit
        var aisle = "pantry"
    }

    /// One recipe per use list, each serving 4, so a household of 4 adults scales by 1.
    static func build(_ recipes: [String: [Use]], household: HouseholdPortions = HouseholdPortions(adults: 4, childAges: [])) throws -> GroceryList {
        let built = recipes.keys.sorted().map { id in
            Recipe(
                id: id, title: id, cuisine: "british", minutes: 20, servings: 4, kidFriendly: true, mainIngredient: "beans",
                tags: [], ingredients: recipes[id]!.map { RecipeIngredient(item: $0.item, quantity: $0.quantity, unit: $0.unit, aisle: $0.aisle, allergens: []) },
                allergens: [])
        }
        return GroceryListBuilder(catalogue: try RecipeCatalogue(recipes: built)).build(recipes: built, household: household)
    }

    func only(_ list: GroceryList, _ item: String) throws -> GroceryLine {
        let lines = list.lines(for: item)
        try #require(lines.count == 1, "\(item): \(lines)")
        return lines[0]
    }

    @Test func cupsSpoonsAndMillilitresMergeIntoMillilitres() throws {
        let list = try Self.build([
            "a": [Use(item: "milk", quantity: 1, unit: .cup)],
            "b": [Use(item: "milk", quantity: 2, unit: .tablespoon)],
            "c": [Use(item: "milk", quantity: 1, unit: .teaspoon)],
        ])
        #expect(try only(list, "milk") == GroceryLine(item: "milk", quantity: 275, unit: .millilitre, recipes: ["a", "b", "c"]))
    }

    @Test func spoonOnlyAmountsStayInSpoons() throws {
        let list = try Self.build([
            "a": [Use(item: "olive oil", quantity: 2, unit: .tablespoon), Use(item: "salt", quantity: 1, unit: .teaspoon),
                  Use(item: "chili flakes", quantity: 1, unit: .pinch), Use(item: "cumin", quantity: 1, unit: .teaspoon)],
            "b": [Use(item: "olive oil", quantity: 3, unit: .teaspoon), Use(item: "salt", quantity: 0.5, unit: .teaspoon),
                  Use(item: "chili flakes", quantity: 1, unit: .pinch), Use(item: "cumin", quantity: 1, unit: .pinch)],
        ])
        #expect(try only(list, "olive oil").quantity == 3)
        #expect(try only(list, "olive oil").unit == .tablespoon)
        #expect(try only(list, "salt").quantity == 1.5)
        #expect(try only(list, "salt").unit == .teaspoon)
        #expect(try only(list, "chili flakes").quantity == 2)
        #expect(try only(list, "chili flakes").unit == .pinch)
        // 1 tsp and a pinch is 1.0625 tsp, rounded up to the next quarter.
        #expect(try only(list, "cumin").quantity == 1.25)
    }

    @Test func largeSpoonTotalsBecomeMillilitres() throws {
        let list = try Self.build(Dictionary(uniqueKeysWithValues: (1...9).map { ("r\($0)", [Use(item: "olive oil", quantity: 1, unit: .tablespoon)]) }))
        #expect(try only(list, "olive oil").quantity == 135)
        #expect(try only(list, "olive oil").unit == .millilitre)
    }

    @Test func gramsAndKilogramsMerge() throws {
        let list = try Self.build([
            "a": [Use(item: "chicken thighs", quantity: 800, unit: .gram), Use(item: "rice", quantity: 300, unit: .gram)],
            "b": [Use(item: "chicken thighs", quantity: 0.5, unit: .kilogram), Use(item: "rice", quantity: 200, unit: .gram)],
        ])
        #expect(try only(list, "chicken thighs") == GroceryLine(item: "chicken thighs", quantity: 1.3, unit: .kilogram, recipes: ["a", "b"]))
        #expect(try only(list, "rice") == GroceryLine(item: "rice", quantity: 500, unit: .gram, recipes: ["a", "b"]))
    }

    @Test func millilitresAndLitresMerge() throws {
        let list = try Self.build([
            "a": [Use(item: "stock", quantity: 500, unit: .millilitre), Use(item: "water", quantity: 250, unit: .millilitre)],
            "b": [Use(item: "stock", quantity: 1, unit: .litre), Use(item: "water", quantity: 0.5, unit: .litre)],
        ])
        #expect(try only(list, "stock").quantity == 1.5)
        #expect(try only(list, "stock").unit == .litre)
        #expect(try only(list, "water").quantity == 750)
        #expect(try only(list, "water").unit == .millilitre)
    }

    @Test func countsAddUpAndRoundUpToWholePieces() throws {
        let list = try Self.build(
            ["a": [Use(item: "lemon", quantity: 1, unit: .piece)], "b": [Use(item: "lemon", quantity: 2, unit: .piece)]],
            household: HouseholdPortions(adults: 2, childAges: [6]))  // 2.5 portions of 4: ×0.625
        // 3 × 0.625 = 1.875 lemons: buy 2.
        #expect(try only(list, "lemon") == GroceryLine(item: "lemon", quantity: 2, unit: .piece, recipes: ["a", "b"]))
    }

    @Test func incompatibleUnitsWithoutAConversionStayApart() throws {
        let list = try Self.build([
            "a": [Use(item: "chicken stock", quantity: 1, unit: .cup)],
            "b": [Use(item: "chicken stock", quantity: 200, unit: .gram)],
            "c": [Use(item: "garlic clove", quantity: 2, unit: .piece)],
            "d": [Use(item: "garlic clove", quantity: 1, unit: .teaspoon)],
        ])
        #expect(Set(list.lines(for: "chicken stock")) == [
            GroceryLine(item: "chicken stock", quantity: 240, unit: .millilitre, recipes: ["a"]),
            GroceryLine(item: "chicken stock", quantity: 200, unit: .gram, recipes: ["b"]),
        ])
        #expect(list.lines(for: "garlic clove").count == 2)
    }

    @Test func knownDensitiesAndPieceWeightsConvertToGrams() throws {
        let list = try Self.build([
            "a": [Use(item: "long-grain rice", quantity: 1, unit: .cup), Use(item: "potato", quantity: 2, unit: .piece)],
            "b": [Use(item: "long-grain rice", quantity: 200, unit: .gram), Use(item: "potato", quantity: 500, unit: .gram)],
        ])
        // 240 ml × 0.8 g/ml + 200 g; 2 × 200 g + 500 g.
        #expect(try only(list, "long-grain rice") == GroceryLine(item: "long-grain rice", quantity: 392, unit: .gram, recipes: ["a", "b"]))
        #expect(try only(list, "potato") == GroceryLine(item: "potato", quantity: 900, unit: .gram, recipes: ["a", "b"]))
    }

    @Test func quantitiesScaleByPortionsAndRoundCleanly() throws {
        // 2 adults, a 4-year-old (half) and a 12-year-old (whole): 3.5 portions of a 4-serving recipe.
        let list = try Self.build(
            ["a": [Use(item: "flour", quantity: 0.1, unit: .kilogram), Use(item: "sugar", quantity: 0.2, unit: .kilogram), Use(item: "beef", quantity: 1.1, unit: .kilogram)]],
            household: HouseholdPortions(adults: 2, childAges: [4, 12]))
        #expect(try only(list, "flour").quantity == 88)  // 87.5 g rounded up
        #expect(try only(list, "sugar").quantity == 175)
        #expect(try only(list, "beef").quantity == 963)  // 962.5 g
        #expect(HouseholdPortions(adults: 2, childAges: [4, 12]).portions == 3.5)
        #expect(HouseholdPortions(adults: 0, childAges: []).portions == 1)
    }

    @Test func aislesComeInStoreOrderAndEncodeAsAnObject() throws {
        let list = try Self.build([
            "a": [Use(item: "peas", quantity: 100, unit: .gram, aisle: "frozen"), Use(item: "salt", quantity: 1, unit: .teaspoon, aisle: "spices"),
                  Use(item: "onion", quantity: 1, unit: .piece, aisle: "produce"), Use(item: "carrot", quantity: 1, unit: .piece, aisle: "produce"),
                  Use(item: "hot sauce", quantity: 1, unit: .teaspoon, aisle: "condiments")],
        ])
        #expect(list.aisles.map(\.name) == ["produce", "spices", "frozen", "condiments"])
        #expect(list.aisles[0].lines.map(\.item) == ["carrot", "onion"])
        let data = try JSONEncoder().encode(list)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["aisle_order"] as? [String] == ["produce", "spices", "frozen", "condiments"])
        let aisles = try #require(json["aisles"] as? [String: [[String: Any]]])
        #expect(Set(aisles.keys) == ["produce", "spices", "frozen", "condiments"])
        let carrot = try #require(aisles["produce"]?.first)
        #expect(Set(carrot.keys) == ["item", "quantity", "unit", "recipes"])
        #expect(carrot["item"] as? String == "carrot" && carrot["quantity"] as? Double == 1 && carrot["unit"] as? String == "piece")
        #expect(carrot["recipes"] as? [String] == ["a"])
        #expect(try JSONDecoder().decode(GroceryList.self, from: data) == list)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(GroceryList.self, from: Data(#"{"aisles": {"produce": []}, "aisle_order": ["dairy"]}"#.utf8))
        }
    }

    @Test func aPlanForAFamilyCoversEveryIngredient() throws {
        let planner = try PlanningFixtures.planner.get()
        let plan = try planner.plan(MealPlanRequest(
            prefs: .init(adults: 2, kidsAges: [4, 9], allergies: ["peanuts"], cuisines: []), days: 7, startDate: PlanningFixtures.day("2025-03-03")))
        let list = GroceryListBuilder(catalogue: planner.catalogue).build(for: plan)
        for id in plan.recipeIds {
            for ingredient in planner.catalogue.recipe(id: id)!.ingredients {
                #expect(list.lines(for: ingredient.item).contains { $0.recipes.contains(id) }, "\(ingredient.item) of \(id)")
            }
        }
        for line in list.lines {
            #expect(line.quantity > 0)
            #expect(line.quantity == (line.quantity * 100).rounded() / 100, "\(line)")
        }
    }
}
