/// The part of a recipe a plan shows.
public struct RecipeSummary: Codable, Sendable, Hashable {
    public let id: String
    public let title: String
    public let cuisine: String
    public let minutes: Int
    public let allergens: [String]

    public init(id: String, title: String, cuisine: String, minutes: Int, allergens: [String]) {
        self.id = id
        self.title = title
        self.cuisine = cuisine
        self.minutes = minutes
        self.allergens = allergens
    }

    public init(_ recipe: Recipe) {
        self.init(id: recipe.id, title: recipe.title, cuisine: recipe.cuisine, minutes: recipe.minutes, allergens: recipe.allergens)
    }
}
