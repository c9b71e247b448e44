import Foundation
import HearthContent

/// The validated recipe catalogue, with lookups by id and cuisine.
public struct RecipeCatalogue: Sendable {
    /// In file order, which is the catalogue's stable order for ties.
    public let recipes: [Recipe]
    private let positionById: [String: Int]

    public init(recipes: [Recipe]) throws(PlanningContentError) {
        var positions: [String: Int] = [:]
        for (position, recipe) in recipes.enumerated() {
            try Self.validate(recipe)
            guard positions.updateValue(position, forKey: recipe.id) == nil else {
                throw Self.malformed("duplicate recipe id \(recipe.id)")
            }
        }
        self.recipes = recipes
        positionById = positions
    }

    public init(jsonData: Data) throws(PlanningContentError) {
        let decoded: [Recipe]
        do {
            decoded = try JSONDecoder().decode([Recipe].self, from: jsonData)
        } catch {
            throw Self.malformed("cannot decode: \(error)")
        }
        try self.init(recipes: decoded)
    }

    /// The catalogue shipped in `HearthContent`.
    public static func bundled() throws -> RecipeCatalogue {
        try RecipeCatalogue(jsonData: HearthContent.data(of: .recipes))
    }

    public func recipe(id: String) -> Recipe? {
        positionById[id].map { recipes[$0] }
    }

    func position(ofId id: String) -> Int? {
        positionById[id]
    }

    /// Recipes of one cuisine, compared case-insensitively and ignoring separators, so
    /// "Middle Eastern" finds "middle-eastern".
    public func recipes(cuisine: String) -> [Recipe] {
        let wanted = Self.cuisineKey(cuisine)
        return recipes.filter { Self.cuisineKey($0.cuisine) == wanted }
    }

    /// Every cuisine in the catalogue, sorted.
    public var cuisines: [String] {
        Array(Set(recipes.map(\.cuisine))).sorted()
    }

    /// The comparison key for cuisine names: letters and digits only.
    static func cuisineKey(_ cuisine: String) -> String {
        WordMatching.words(in: cuisine).joined()
    }

    private static func validate(_ recipe: Recipe) throws(PlanningContentError) {
        let name = recipe.id.isEmpty ? "a recipe" : recipe.id
        func require(_ condition: Bool, _ reason: @autoclosure () -> String) throws(PlanningContentError) {
            if !condition { throw malformed("\(name): \(reason())") }
        }
        try require(!recipe.id.trimmingCharacters(in: .whitespaces).isEmpty, "id must not be blank")
        try require(!recipe.title.trimmingCharacters(in: .whitespaces).isEmpty, "title must not be blank")
        try require(!recipe.cuisine.trimmingCharacters(in: .whitespaces).isEmpty, "cuisine must not be blank")
        try require(!recipe.mainIngredient.trimmingCharacters(in: .whitespaces).isEmpty, "main_ingredient must not be blank")
        try require(recipe.minutes > 0, "minutes must be positive")
        try require(recipe.servings > 0, "servings must be positive")
        try require(!recipe.ingredients.isEmpty, "ingredients must not be empty")
        try require(recipe.allergens.allSatisfy(isAllergenKey), "allergens must be non-blank lower-case keys")
        var items = Set<String>()
        for ingredient in recipe.ingredients {
            let item = ingredient.item.trimmingCharacters(in: .whitespaces)
            try require(!item.isEmpty, "ingredient item must not be blank")
            try require(items.insert(item.lowercased()).inserted, "ingredient \(item) is listed twice")
            try require(ingredient.quantity.isFinite && ingredient.quantity > 0, "\(item): quantity must be a positive number")
            try require(!ingredient.aisle.trimmingCharacters(in: .whitespaces).isEmpty, "\(item): aisle must not be blank")
            try require(ingredient.allergens.allSatisfy(isAllergenKey), "\(item): allergens must be non-blank lower-case keys")
        }
    }

    private static func isAllergenKey(_ key: String) -> Bool {
        !key.isEmpty && key == key.lowercased() && key.trimmingCharacters(in: .whitespaces) == key
    }

    private static func malformed(_ reason: String) -> PlanningContentError {
        PlanningContentError(file: HearthContent.File.recipes.rawValue, reason: reason)
    }
}
