import Foundation
import HearthDomain
import Testing

/// The first-foods catalogue: the bundled file's safety rules, look-ups, search and refusals.
@Suite struct FoodCatalogueTests {
    static let catalogue = Result { try FoodCatalogue.bundled() }
    static let vocabulary = Result { try AllergenVocabulary.bundled() }

    static let valid = """
        {"source": "test", "foods": [
          {"id": "plum", "name": "Plum", "category": "fruit", "colour": "purple", "allergens": [], "from_months": 6,
           "choking_risk": "medium", "serving_tip": "Stone it and cut it into quarters."},
          {"id": "toast", "name": "Toast", "category": "grain", "colour": "brown", "allergens": ["wheat", "gluten"],
           "from_months": 6, "choking_risk": "low", "serving_tip": "Cut it into fingers."}]}
        """

    static func broken(_ original: String, _ replacement: String) -> String {
        let replaced = valid.replacingOccurrences(of: original, with: replacement)
        precondition(replaced != valid, "fixture no longer contains \(original)")
        return replaced
    }

    static func foodsNamed(_ ids: [String], in catalogue: FoodCatalogue) -> [CatalogueFood] {
        ids.compactMap { catalogue.food(id: $0) }
    }

    @Test func theBundledCatalogueLoads() throws {
        let catalogue = try Self.catalogue.get()
        #expect(catalogue.foods.count >= 140)
        #expect(catalogue.source.contains("Hearth"))
        #expect(catalogue.food(id: "banana")?.name == "Banana")
        #expect(catalogue.food(id: "no-such-food") == nil)
        for category in FoodCatalogue.categories {
            #expect(catalogue.foods.contains { $0.category == category }, "no food in \(category)")
        }
    }

    @Test func idsAreUniqueLowerCaseHyphenatedAndSorted() throws {
        let ids = try Self.catalogue.get().foods.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids == ids.sorted())
        for id in ids {
            #expect(id.wholeMatch(of: #/[a-z0-9]+(-[a-z0-9]+)*/#) != nil, "\(id)")
        }
    }

    @Test func namesAreUniqueIgnoringCase() throws {
        let names = try Self.catalogue.get().foods.map { $0.name.lowercased() }
        #expect(Set(names).count == names.count)
    }

    @Test func everyColourIsOneTheTrackingAPIAccepts() throws {
        let allowed = Set(TrackingLogInput.foodColours)
        #expect(allowed == ["red", "orange", "yellow", "green", "blue", "purple", "white", "brown"])
        for food in try Self.catalogue.get().foods {
            #expect(allowed.contains(food.colour), "\(food.id): \(food.colour)")
        }
    }

    @Test func everyAllergenIsCanonicalAndWheatComesWithGluten() throws {
        let canonical = Set(try Self.vocabulary.get().canonicalAllergens.map(\.rawValue))
        for food in try Self.catalogue.get().foods {
            #expect(food.allergens.allSatisfy(canonical.contains), "\(food.id): \(food.allergens)")
            if food.allergens.contains("wheat") { #expect(food.allergens.contains("gluten"), "\(food.id)") }
        }
    }

    /// The recipe screener's name rule, applied to foods: a name that suggests an allergen must
    /// list it. "Butter" is a milk term and the vocabulary's exceptions only cover some nut
    /// butters, so these two are known false alarms rather than missing labels.
    static let nameFalseAlarms: [String: Set<String>] = ["hazelnut-butter": ["milk"], "sunflower-seed-butter": ["milk"]]

    @Test func everyAllergenTheNameSuggestsIsListed() throws {
        let matcher = AllergenMatcher(vocabulary: try Self.vocabulary.get())
        for food in try Self.catalogue.get().foods {
            let suggested = Set(matcher.allergensSuggested(byIngredientName: food.name).map(\.rawValue))
            let missing = suggested.subtracting(food.allergens).subtracting(Self.nameFalseAlarms[food.id] ?? [])
            #expect(missing.isEmpty, "\(food.id) should list \(missing.sorted())")
        }
    }

    @Test func riskyFoodsWaitOrCarryAWarning() throws {
        let catalogue = try Self.catalogue.get()
        #expect(catalogue.food(id: "honey")?.fromMonths == 12)
        #expect(catalogue.food(id: "whole-milk")?.fromMonths == 12)
        #expect(try #require(catalogue.food(id: "popcorn")).fromMonths >= 48)
        let grapes = try #require(catalogue.food(id: "grapes"))
        #expect(grapes.chokingRisk == "high")
        #expect(grapes.servingTip.lowercased().contains("quarter"))
        #expect(grapes.servingTip.lowercased().contains("lengthwise"))
        #expect(catalogue.food(named: "whole almonds") == nil)
        #expect(catalogue.food(named: "peanuts") == nil)
        for food in catalogue.foods {
            #expect(FoodCatalogue.chokingRisks.contains(food.chokingRisk), "\(food.id)")
            #expect(FoodCatalogue.fromMonthsRange.contains(food.fromMonths), "\(food.id)")
            #expect(!food.servingTip.isEmpty, "\(food.id)")
        }
    }

    @Test func knownFoodsCarryTheirAllergens() throws {
        let catalogue = try Self.catalogue.get()
        #expect(catalogue.food(id: "peanut-butter")?.allergens == ["peanut"])
        #expect(catalogue.food(id: "hummus")?.allergens == ["sesame"])
        #expect(catalogue.food(id: "chickpeas")?.allergens == [])
        #expect(catalogue.food(id: "scrambled-egg")?.allergens == ["egg"])
        #expect(catalogue.food(id: "greek-yogurt")?.allergens == ["milk"])
        #expect(catalogue.food(id: "salmon")?.allergens == ["fish"])
        #expect(catalogue.food(id: "prawns")?.allergens == ["shellfish"])
        #expect(catalogue.food(id: "tofu")?.allergens == ["soy"])
        #expect(catalogue.food(id: "almond-butter")?.allergens == ["tree_nut"])
        #expect(Set(catalogue.food(id: "bread")?.allergens ?? []) == ["wheat", "gluten"])
        #expect(Set(catalogue.food(id: "pancakes")?.allergens ?? []) == ["milk", "egg", "wheat", "gluten"])
        #expect(catalogue.food(id: "buckwheat")?.allergens == [])
        #expect(catalogue.food(id: "nutmeg")?.allergens == [])
    }

    @Test func lookupByNameIgnoresCaseSpacingAndPlurals() throws {
        let catalogue = try Self.catalogue.get()
        #expect(catalogue.food(named: "Banana")?.id == "banana")
        #expect(catalogue.food(named: "bananas")?.id == "banana")
        #expect(catalogue.food(named: "  BLUEBERRIES ")?.id == "blueberries")
        #expect(catalogue.food(named: "blueberry")?.id == "blueberries")
        #expect(catalogue.food(named: "peanut   Butter")?.id == "peanut-butter")
        #expect(catalogue.food(named: "hard boiled egg")?.id == "hard-boiled-egg")
        #expect(catalogue.food(named: "cherry tomato")?.id == "cherry-tomatoes")
        #expect(catalogue.food(named: "peas")?.id == "peas")
        #expect(catalogue.food(named: "pea")?.id == "peas")
        #expect(catalogue.food(named: "pears")?.id == "pear")
        #expect(catalogue.food(named: "Tomatoes")?.id == "tomato")
        #expect(catalogue.food(named: "tinned-tuna")?.id == "tinned-tuna")
        #expect(catalogue.food(named: "dragon fruit") == nil)
        #expect(catalogue.food(named: "  ") == nil)
    }

    @Test func searchPutsTheExactNameFirstThenSortsByName() throws {
        let catalogue = try Self.catalogue.get()
        #expect(catalogue.search("butter").map(\.id) == [
            "butter", "almond-butter", "butter-beans", "butternut-squash", "cashew-butter", "hazelnut-butter",
            "peanut-butter", "sunflower-seed-butter",
        ])
        #expect(catalogue.search("pea").map(\.id) == [
            "peas", "peach", "peanut-butter", "peanut-powder", "peanut-puffs", "pear", "pearl-barley", "yellow-split-peas",
        ])
        #expect(catalogue.search("EGG").map(\.id) == ["egg-noodles", "hard-boiled-egg", "scrambled-egg"])
        #expect(catalogue.search("peanut but").map(\.id) == ["peanut-butter"])
        #expect(catalogue.search("bananas").first?.id == "banana")
        #expect(catalogue.search("pea", limit: 2).map(\.id) == ["peas", "peach"])
        #expect(catalogue.search("pea", limit: 0).isEmpty)
        #expect(catalogue.search("").isEmpty)
        #expect(catalogue.search("zzz").isEmpty)
    }

    @Test func acceptsAMinimalValidFileAndEncodesSnakeCase() throws {
        let catalogue = try FoodCatalogue(jsonData: Data(Self.valid.utf8), vocabulary: try Self.vocabulary.get())
        #expect(catalogue.foods.map(\.id) == ["plum", "toast"])
        let toast = try #require(catalogue.food(named: "toast"))
        #expect(toast.fromMonths == 6 && toast.chokingRisk == "low")
        let json = String(decoding: try JSONEncoder().encode(toast), as: UTF8.self)
        #expect(json.contains("\"from_months\":6") && json.contains("\"choking_risk\"") && json.contains("\"serving_tip\""))
        #expect(try JSONDecoder().decode(CatalogueFood.self, from: Data(json.utf8)) == toast)
    }

    @Test func anUnknownColourFailsNamingTheFood() {
        let json = Self.broken(#""colour": "purple""#, #""colour": "black""#)
        let error = #expect(throws: FoodCatalogueError.self) { try FoodCatalogue(jsonData: Data(json.utf8)) }
        #expect(error == .invalidFood(
            food: "plum", field: "colour",
            reason: "\"black\" is not one of red, orange, yellow, green, blue, purple, white, brown"))
        #expect(error?.description.contains("\"plum\"") == true)
    }

    struct Malformed: Sendable, CustomStringConvertible {
        let problem: String
        let json: String
        let food: String
        let field: String
        var description: String { problem }
    }

    static let malformedFiles: [Malformed] = [
        Malformed(problem: "missing allergens", json: broken(#""allergens": [], "#, ""), food: "plum", field: "allergens"),
        Malformed(problem: "age as text", json: broken(#""from_months": 6,"#, #""from_months": "six","#), food: "plum", field: "from_months"),
        Malformed(problem: "null name", json: broken(#""name": "Plum""#, #""name": null"#), food: "plum", field: "name"),
        Malformed(problem: "no id", json: broken(#""id": "plum", "#, ""), food: "foods[0]", field: "id"),
        Malformed(problem: "upper-case id", json: broken(#""id": "plum""#, #""id": "Plum""#), food: "Plum", field: "id"),
        Malformed(problem: "misspelt key", json: broken(#""allergens": [], "#, #""allergens": [], "alergens": [], "#), food: "plum", field: "alergens"),
        Malformed(problem: "unknown category", json: broken(#""category": "fruit""#, #""category": "fruits""#), food: "plum", field: "category"),
        Malformed(problem: "unknown choking risk", json: broken(#""choking_risk": "medium""#, #""choking_risk": "some""#), food: "plum", field: "choking_risk"),
        Malformed(problem: "too young", json: broken(#""from_months": 6,"#, #""from_months": 3,"#), food: "plum", field: "from_months"),
        Malformed(problem: "empty tip", json: broken(#""Stone it and cut it into quarters.""#, #"" ""#), food: "plum", field: "serving_tip"),
        Malformed(problem: "upper-case allergen", json: broken(#"["wheat", "gluten"]"#, #"["Wheat", "gluten"]"#), food: "toast", field: "allergens"),
        Malformed(problem: "allergen twice", json: broken(#"["wheat", "gluten"]"#, #"["wheat", "gluten", "wheat"]"#), food: "toast", field: "allergens"),
        Malformed(problem: "non-canonical allergen", json: broken(#"["wheat", "gluten"]"#, #"["wheat", "gluten", "nuts"]"#), food: "toast", field: "allergens"),
        Malformed(problem: "repeated id", json: broken(#""id": "toast""#, #""id": "plum""#), food: "plum", field: "id"),
        Malformed(problem: "name repeated in another case", json: broken(#""name": "Toast""#, #""name": "PLUM""#), food: "toast", field: "name"),
        Malformed(problem: "name is another's plural", json: broken(#""name": "Toast""#, #""name": "Plums""#), food: "toast", field: "name"),
    ]

    @Test(arguments: malformedFiles)
    func malformedFoodsAreRefusedNamingTheFoodAndField(_ file: Malformed) throws {
        let vocabulary = try Self.vocabulary.get()
        let error = #expect(throws: FoodCatalogueError.self, "\(file.problem)") {
            try FoodCatalogue(jsonData: Data(file.json.utf8), vocabulary: vocabulary)
        }
        guard case .invalidFood(let food, let field, _)? = error else {
            Issue.record("\(file.problem): expected an invalid food, got \(String(describing: error))")
            return
        }
        #expect(food == file.food, "\(file.problem)")
        #expect(field == file.field, "\(file.problem)")
    }

    @Test func aFileThatIsNotACatalogueIsUnreadable() {
        for json in [#"[{"id": "plum"}]"#, #"{"foods": []}"#, "not json"] {
            let error = #expect(throws: FoodCatalogueError.self, "\(json)") { try FoodCatalogue(jsonData: Data(json.utf8)) }
            guard case .unreadable(let file, _)? = error else {
                Issue.record("\(json): expected unreadable, got \(String(describing: error))")
                continue
            }
            #expect(file == "first_foods.json")
        }
    }
}
