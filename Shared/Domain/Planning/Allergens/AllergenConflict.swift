/// Why a recipe is unsafe for a household: which avoided allergen or word, and where in the
/// recipe it was found.
public struct AllergenConflict: Codable, Sendable, Hashable {
    public enum Evidence: String, Codable, Sendable {
        /// The recipe's own `allergens` list.
        case recipeLabel = "recipe_label"
        /// An ingredient's `allergens` list.
        case ingredientLabel = "ingredient_label"
        /// An ingredient's name ("peanut butter", or an unrecognised word such as "kiwi").
        case ingredientName = "ingredient_name"
    }

    /// A canonical allergen key, or an unrecognised declared word.
    public let avoided: String
    public let evidence: Evidence
    /// The ingredient concerned, unless the evidence is the recipe's own label.
    public let ingredient: String?

    public init(avoided: String, evidence: Evidence, ingredient: String?) {
        self.avoided = avoided
        self.evidence = evidence
        self.ingredient = ingredient
    }
}
