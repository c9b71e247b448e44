import Foundation
import HearthDomain
import Testing

@Suite struct AllergenMatcherTests {
    static func recipe(_ id: String, _ items: [String], labels: [String] = [], ingredientLabels: [String: [String]] = [:]) -> Recipe {
        Recipe(
            id: id, title: id, cuisine: "british", minutes: 20, servings: 4, kidFriendly: true, mainIngredient: "vegetables",
            tags: [], ingredients: items.map {
                RecipeIngredient(item: $0, quantity: 1, unit: .piece, aisle: "pantry", allergens: ingredientLabels[$0] ?? [])
            },
            allergens: labels)
    }

    func resolve(_ declared: String...) throws -> DeclaredAllergies {
        try PlanningFixtures.vocabulary.get().resolve(declared)
    }

    @Test func declarationsMapToCanonicalAllergens() throws {
        #expect(try resolve("peanuts").allergens == ["peanut"])
        #expect(try resolve("Nuts").allergens == ["peanut", "tree_nut"])
        #expect(try resolve("dairy").allergens == ["milk"])
        #expect(try resolve("gluten").allergens == ["wheat", "gluten"])
        #expect(try resolve("  Coeliac Disease ").allergens == ["wheat", "gluten"])
        #expect(try resolve("shellfish").allergens == ["shellfish", "mollusc"])
        #expect(try resolve("tree_nut", "tree-nuts").allergens == ["tree_nut"])
        #expect(try resolve("EGGS").allergens == ["egg"])
        #expect(try resolve("sesame seed").allergens == ["sesame"])
        #expect(try resolve("lupins").allergens == ["lupin"])
    }

    @Test func wheatImpliesGluten() throws {
        #expect(try resolve("wheat").allergens == ["wheat", "gluten"])
        #expect(try resolve("barley").allergens == ["gluten"])
    }

    @Test func freeTextDeclarationsAreRead() throws {
        let declared = try resolve("I'm allergic to peanuts and sesame", "dairy-free", "severe egg allergy")
        #expect(declared.allergens == ["peanut", "milk", "egg", "sesame"])
        #expect(declared.unrecognisedTerms.isEmpty)
        #expect(try resolve("cow’s milk").allergens == ["milk"])
    }

    @Test func unknownDeclarationsAreKeptAsWords() throws {
        let declared = try resolve("kiwi", "Kiwi fruit", "peanut")
        #expect(declared.allergens == ["peanut"])
        #expect(declared.unrecognisedTerms == ["fruit", "kiwi"])
        #expect(try resolve("allergic to").isEmpty)
    }

    @Test func peanutsExcludePeanutButterAndGroundnutOilByName() throws {
        let matcher = AllergenMatcher(vocabulary: try PlanningFixtures.vocabulary.get())
        let declared = try resolve("peanuts")
        // Unlabelled on purpose: the name alone must be enough.
        #expect(!matcher.isSafe(Self.recipe("satay", ["chicken", "peanut butter"]), for: declared))
        #expect(!matcher.isSafe(Self.recipe("fried", ["groundnut oil", "rice"]), for: declared))
        #expect(!matcher.isSafe(Self.recipe("labelled", ["mystery sauce"], labels: ["peanut"]), for: declared))
        #expect(!matcher.isSafe(Self.recipe("ingredient-labelled", ["mystery sauce"], ingredientLabels: ["mystery sauce": ["peanut"]]), for: declared))
        #expect(matcher.isSafe(Self.recipe("plain", ["rice", "butternut squash", "nutmeg"]), for: declared))
    }

    @Test func dairyExcludesButterAndCheeseButNotButterBeans() throws {
        let matcher = AllergenMatcher(vocabulary: try PlanningFixtures.vocabulary.get())
        let dairy = try resolve("dairy")
        #expect(!matcher.isSafe(Self.recipe("buttery", ["butter", "potato"]), for: dairy))
        #expect(!matcher.isSafe(Self.recipe("cheesy", ["cheddar cheese", "bread"]), for: dairy))
        #expect(!matcher.isSafe(Self.recipe("creamy", ["heavy cream"]), for: dairy))
        #expect(matcher.isSafe(Self.recipe("beans", ["butter beans", "tomato"]), for: dairy))
        #expect(matcher.isSafe(Self.recipe("satay", ["peanut butter", "coconut milk", "butternut squash"]), for: dairy))
    }

    @Test func anExceptionOnlyCoversItsOwnWords() throws {
        let matcher = AllergenMatcher(vocabulary: try PlanningFixtures.vocabulary.get())
        #expect(!matcher.isSafe(Self.recipe("both", ["butter beans with butter"]), for: try resolve("milk")))
        #expect(matcher.allergensSuggested(byIngredientName: "eggplant") == [])
        #expect(matcher.allergensSuggested(byIngredientName: "egg noodles") == ["egg", "wheat", "gluten"])
        #expect(matcher.allergensSuggested(byIngredientName: "rice noodles") == [])
    }

    @Test func unknownWordsExcludeIngredientsNamedByThem() throws {
        let matcher = AllergenMatcher(vocabulary: try PlanningFixtures.vocabulary.get())
        let kiwi = try resolve("kiwi")
        #expect(!matcher.isSafe(Self.recipe("salad", ["kiwis", "lettuce"]), for: kiwi))
        #expect(!matcher.isSafe(Self.recipe("salsa", ["kiwi fruit"]), for: kiwi))
        #expect(matcher.isSafe(Self.recipe("other", ["kiwano melon"]), for: kiwi))
    }

    @Test func labelsAreReadThroughImplications() throws {
        let matcher = AllergenMatcher(vocabulary: try PlanningFixtures.vocabulary.get())
        // Labelled "wheat" without "gluten": still unsafe for someone avoiding barley (gluten).
        #expect(!matcher.isSafe(Self.recipe("loaf", ["mystery"], labels: ["wheat"]), for: try resolve("barley")))
    }

    @Test func conflictsExplainWhereTheAllergenIs() throws {
        let matcher = AllergenMatcher(vocabulary: try PlanningFixtures.vocabulary.get())
        let conflicts = matcher.conflicts(
            in: Self.recipe("r", ["peanut butter", "kiwi"], labels: ["peanut"], ingredientLabels: ["peanut butter": ["peanut"]]),
            for: try resolve("peanut", "kiwi"))
        #expect(conflicts == [
            AllergenConflict(avoided: "peanut", evidence: .recipeLabel, ingredient: nil),
            AllergenConflict(avoided: "peanut", evidence: .ingredientLabel, ingredient: "peanut butter"),
            AllergenConflict(avoided: "peanut", evidence: .ingredientName, ingredient: "peanut butter"),
            AllergenConflict(avoided: "kiwi", evidence: .ingredientName, ingredient: "kiwi"),
        ])
    }

    @Test func catalogueRecipesWithPeanutButterAreUnsafeForPeanuts() throws {
        let planner = try PlanningFixtures.planner.get()
        let withPeanutButter = planner.catalogue.recipes.filter { $0.ingredients.contains { $0.item == "peanut butter" } }
        #expect(!withPeanutButter.isEmpty)
        let safe = Set(planner.safeRecipes(for: try resolve("peanuts")).map(\.id))
        #expect(withPeanutButter.allSatisfy { !safe.contains($0.id) })
        let butterBeans = planner.catalogue.recipes.filter { recipe in
            recipe.ingredients.contains { $0.item == "butter beans" } && !recipe.allergens.contains("milk")
        }
        #expect(!butterBeans.isEmpty)
        let dairySafe = Set(planner.safeRecipes(for: try resolve("dairy")).map(\.id))
        #expect(butterBeans.allSatisfy { dairySafe.contains($0.id) })
    }

    @Test func malformedVocabularyIsRejected() {
        #expect(throws: PlanningContentError.self) {
            try AllergenVocabulary(jsonData: Data(#"{"canonical": ["peanut"], "declarations": {"nuts": ["tree_nut"]}, "ingredient_terms": {}}"#.utf8))
        }
        #expect(throws: PlanningContentError.self) { try AllergenVocabulary(jsonData: Data("[]".utf8)) }
    }
}
