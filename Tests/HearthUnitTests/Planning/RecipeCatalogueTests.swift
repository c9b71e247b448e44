import Foundation
import HearthDomain
import Testing

@Suite struct RecipeCatalogueTests {
    static let valid = """
        [{"id": "rcp-1", "title": "Toast", "cuisine": "british", "minutes": 5, "servings": 2, "kid_friendly": true,
          "main_ingredient": "bread", "tags": [], "ingredients": [
            {"item": "bread", "quantity": 2, "unit": "piece", "aisle": "bakery", "allergens": ["wheat", "gluten"]}],
          "allergens": ["wheat", "gluten"]}]
        """

    @Test func loadsTheBundledCatalogue() throws {
        let catalogue = try PlanningFixtures.catalogue.get()
        #expect(catalogue.recipes.count == 161)
        #expect(catalogue.recipe(id: "rcp-001-lemon-herb-chicken-traybake")?.title == "Lemon herb chicken traybake")
        #expect(catalogue.recipe(id: "rcp-000-nothing") == nil)
        #expect(catalogue.recipes(cuisine: "Middle Eastern").count == 10)
        #expect(catalogue.recipes(cuisine: "thai").allSatisfy { $0.cuisine == "thai" })
        #expect(catalogue.cuisines.count == 15)
    }

    @Test func acceptsAMinimalValidFile() throws {
        let catalogue = try RecipeCatalogue(jsonData: Data(Self.valid.utf8))
        #expect(catalogue.recipes.first?.ingredients.first?.unit == .piece)
    }

    static let ingredientsJSON = #"[\#n    {"item": "bread", "quantity": 2, "unit": "piece", "aisle": "bakery", "allergens": ["wheat", "gluten"]}]"#

    static func broken(_ original: String, _ replacement: String) -> String {
        let replaced = valid.replacingOccurrences(of: original, with: replacement)
        precondition(replaced != valid, "fixture no longer contains \(original)")
        return replaced
    }

    static let malformedFiles: [(String, String)] = [
        ("not an array", #"{"id": "x"}"#),
        ("missing title", broken(#""title": "Toast", "#, "")),
        ("unknown unit", broken(#""unit": "piece""#, #""unit": "handful""#)),
        ("zero quantity", broken(#""quantity": 2"#, #""quantity": 0"#)),
        ("zero servings", broken(#""servings": 2"#, #""servings": 0"#)),
        ("blank id", broken(#""id": "rcp-1""#, #""id": " ""#)),
        ("no ingredients", broken(ingredientsJSON, "[]")),
        ("upper-case allergen", broken(#""allergens": ["wheat", "gluten"]}]"#, #""allergens": ["Wheat"]}]"#)),
        ("duplicate id", "[" + String(valid.dropFirst().dropLast()) + "," + String(valid.dropFirst())),
    ]

    @Test(arguments: malformedFiles)
    func rejectsMalformedFiles(_ problem: String, _ json: String) {
        #expect(throws: PlanningContentError.self, "\(problem)") { try RecipeCatalogue(jsonData: Data(json.utf8)) }
    }
}
