/// Decides whether a recipe is safe for what a household declared. This is the hard rule:
/// whatever ranks or suggests recipes, nothing reaches a plan without passing here.
///
/// A recipe is unsafe when any avoided allergen appears in the recipe's label, in any
/// ingredient's label, or is suggested by any ingredient's name through `ingredient_terms`
/// ("groundnut oil" ⇒ peanut). Names listed in `term_exceptions` do not count for that
/// allergen ("butter beans" are not milk), but only the words the exception covers are set
/// aside: "butter beans with butter" still contains butter. Unrecognised declared words
/// exclude recipes with an ingredient named by that word.
public struct AllergenMatcher: Sendable {
    public let vocabulary: AllergenVocabulary

    public init(vocabulary: AllergenVocabulary) {
        self.vocabulary = vocabulary
    }

    public static func bundled() throws -> AllergenMatcher {
        AllergenMatcher(vocabulary: try AllergenVocabulary.bundled())
    }

    /// The canonical allergens an ingredient's name suggests, in vocabulary order.
    public func allergensSuggested(byIngredientName name: String) -> [CanonicalAllergen] {
        let words = WordMatching.words(in: name)
        var suggested: [CanonicalAllergen] = []
        for (position, allergen) in vocabulary.canonicalAllergens.enumerated() {
            var masked = [Bool](repeating: false, count: words.count)
            for exception in vocabulary.termExceptions[position] {
                for range in exception.occurrences(in: words) {
                    for index in range { masked[index] = true }
                }
            }
            if vocabulary.ingredientTerms[position].contains(where: { $0.occurs(in: words, avoiding: masked) }) {
                suggested.append(allergen)
            }
        }
        return suggested
    }

    public func profile(of recipe: Recipe) -> RecipeAllergenProfile {
        var nameCache: [String: [CanonicalAllergen]] = [:]
        return profile(of: recipe, nameCache: &nameCache)
    }

    /// Profiles for many recipes, reading each distinct ingredient name once.
    public func profiles(of recipes: [Recipe]) -> [RecipeAllergenProfile] {
        var nameCache: [String: [CanonicalAllergen]] = [:]
        return recipes.map { profile(of: $0, nameCache: &nameCache) }
    }

    public func isSafe(_ recipe: Recipe, for declared: DeclaredAllergies) -> Bool {
        profile(of: recipe).isSafe(for: declared)
    }

    public func conflicts(in recipe: Recipe, for declared: DeclaredAllergies) -> [AllergenConflict] {
        profile(of: recipe).conflicts(with: declared)
    }

    private func profile(of recipe: Recipe, nameCache: inout [String: [CanonicalAllergen]]) -> RecipeAllergenProfile {
        let recipeLabels = labels(recipe.allergens)
        let ingredients = recipe.ingredients.map { ingredient in
            let name = ingredient.item.lowercased()
            let suggested: [CanonicalAllergen]
            if let cached = nameCache[name] {
                suggested = cached
            } else {
                suggested = allergensSuggested(byIngredientName: name)
                nameCache[name] = suggested
            }
            let ingredientLabels = labels(ingredient.allergens)
            return IngredientAllergenProfile(
                item: ingredient.item,
                labelled: ingredientLabels.known,
                suggestedByName: Set(suggested),
                words: WordMatching.words(in: name) + ingredientLabels.unrecognised)
        }
        return RecipeAllergenProfile(
            recipeId: recipe.id, recipeLabels: recipeLabels.known,
            unrecognisedLabelWords: recipeLabels.unrecognised, ingredients: ingredients)
    }

    /// Labels are meant to be canonical keys, but they are read through the vocabulary like
    /// a declaration: implications apply (a "wheat" label also means gluten), a label such
    /// as "nuts" is understood rather than ignored, and unknown label words are kept for
    /// word matching.
    private func labels(_ keys: [String]) -> (known: Set<CanonicalAllergen>, unrecognised: [String]) {
        guard !keys.isEmpty else { return ([], []) }
        let resolved = vocabulary.resolve(keys)
        return (Set(resolved.allergens), resolved.unrecognisedTerms)
    }
}
