/// A catalogue recipe, as stored in `recipes.json`.
public struct Recipe: Codable, Sendable, Hashable, Identifiable {
    public let id: String
    public let title: String
    public let cuisine: String
    public let minutes: Int
    public let servings: Int
    public let kidFriendly: Bool
    public let mainIngredient: String
    public let tags: [String]
    public let description: String
    public let ingredients: [RecipeIngredient]
    /// Canonical allergen keys for the whole dish.
    public let allergens: [String]
    public let steps: [String]

    public init(
        id: String, title: String, cuisine: String, minutes: Int, servings: Int, kidFriendly: Bool,
        mainIngredient: String, tags: [String], description: String = "", ingredients: [RecipeIngredient],
        allergens: [String], steps: [String] = []
    ) {
        self.id = id
        self.title = title
        self.cuisine = cuisine
        self.minutes = minutes
        self.servings = servings
        self.kidFriendly = kidFriendly
        self.mainIngredient = mainIngredient
        self.tags = tags
        self.description = description
        self.ingredients = ingredients
        self.allergens = allergens
        self.steps = steps
    }

    enum CodingKeys: String, CodingKey {
        case id, title, cuisine, minutes, servings
        case kidFriendly = "kid_friendly"
        case mainIngredient = "main_ingredient"
        case tags, description, ingredients, allergens, steps
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        cuisine = try container.decode(String.self, forKey: .cuisine)
        minutes = try container.decode(Int.self, forKey: .minutes)
        servings = try container.decode(Int.self, forKey: .servings)
        kidFriendly = try container.decode(Bool.self, forKey: .kidFriendly)
        mainIngredient = try container.decode(String.self, forKey: .mainIngredient)
        tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        // Prose is for people; planning does not need it, so its absence is not malformed.
        description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
        ingredients = try container.decode([RecipeIngredient].self, forKey: .ingredients)
        allergens = try container.decode([String].self, forKey: .allergens)
        steps = try container.decodeIfPresent([String].self, forKey: .steps) ?? []
    }
}
