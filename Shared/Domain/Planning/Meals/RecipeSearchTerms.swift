/// The words a recipe can be asked for by, stemmed the way goals are.
struct RecipeSearchTerms: Sendable {
    /// Title, tags, cuisine, main ingredient, and "kid" for kid-friendly dishes: a goal word
    /// found here is what the dish is about.
    let headline: Set<String>
    /// Ingredient names and meat/seafood aisles: a goal word found only here is a weaker
    /// match ("lemon" in a dish that merely uses lemon).
    let ingredients: Set<String>

    init(_ recipe: Recipe) {
        func stems(_ text: String) -> [String] {
            WordMatching.words(in: text).map(WordMatching.keywordStem)
        }
        var headline = Set(stems(recipe.title) + stems(recipe.cuisine) + stems(recipe.mainIngredient))
        for tag in recipe.tags {
            headline.insert(tag)
            headline.formUnion(stems(tag))
        }
        if recipe.kidFriendly { headline.insert("kid") }
        var ingredients = Set<String>()
        for ingredient in recipe.ingredients {
            ingredients.formUnion(stems(ingredient.item))
            if ingredient.aisle == "meat" || ingredient.aisle == "seafood" {
                ingredients.insert("meat")
                ingredients.insert(ingredient.aisle)
            }
        }
        self.headline = headline
        self.ingredients = ingredients
    }

    /// 0 to 1: how much of the goal this recipe answers. A headline match counts fully, an
    /// ingredient-only match half.
    func relevance(to wanted: [String]) -> Double {
        guard !wanted.isEmpty else { return 0 }
        let earned = wanted.reduce(0.0) { sum, word in
            sum + (headline.contains(word) ? 1 : ingredients.contains(word) ? 0.5 : 0)
        }
        return earned / Double(wanted.count)
    }

    func mentionsAny(of words: [String]) -> Bool {
        words.contains { headline.contains($0) || ingredients.contains($0) }
    }
}
