import HearthDomain

/// The `fetch_recipes` tool: the catalogue recipes that best answer a search query and are safe
/// for the household, best first. Reads the bundled catalogue directly (until the knowledge
/// service offers vector search); the term index is built once per process.
struct RecipeRetrieval: Sendable {
    static let defaultCount = 8

    private let catalogue: RecipeCatalogue
    /// Each recipe's allergens, worked out once: screening is per search, and cheap this way.
    private let profiles: [RecipeAllergenProfile]
    private let index: [Terms]

    /// The words a recipe can be found by: what it is (title, cuisine, tags, main ingredient)
    /// counts fully, what it merely contains counts half.
    private struct Terms: Sendable {
        let headline: Set<String>
        let ingredients: Set<String>
    }

    init(catalogue: RecipeCatalogue, matcher: AllergenMatcher) {
        self.catalogue = catalogue
        profiles = matcher.profiles(of: catalogue.recipes)
        index = catalogue.recipes.map { recipe in
            var headline = Set(Self.words(recipe.title) + Self.words(recipe.cuisine) + Self.words(recipe.mainIngredient))
            for tag in recipe.tags { headline.formUnion(Self.words(tag)) }
            if recipe.kidFriendly { headline.formUnion(["kid", "friendly", "family"]) }
            let ingredients = Set(recipe.ingredients.flatMap { Self.words($0.item) })
            return Terms(headline: headline, ingredients: ingredients)
        }
    }

    /// Up to `count` safe recipes, by relevance to `query`, catalogue order breaking ties (so the
    /// same query always finds the same recipes).
    func search(_ query: String, avoiding declared: DeclaredAllergies, count: Int = RecipeRetrieval.defaultCount) -> [Recipe] {
        let wanted = Set(Self.words(query)).subtracting(Self.stopWords)
        var scored: [(score: Double, position: Int)] = []
        for position in catalogue.recipes.indices where profiles[position].isSafe(for: declared) {
            let terms = index[position]
            let score = wanted.reduce(0.0) { sum, word in
                sum + (terms.headline.contains(word) ? 1 : terms.ingredients.contains(word) ? 0.5 : 0)
            }
            scored.append((score, position))
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.position < $1.position }
        return scored.prefix(count).map { catalogue.recipes[$0.position] }
    }

    /// Lower-cased words with a plain English plural folded ("tacos" → "taco", "dishes" → "dish").
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map { word in
            if word.hasSuffix("ies"), word.count > 4 { return String(word.dropLast(3)) + "y" }
            if word.hasSuffix("es"), word.count > 4, ["s", "x", "z", "h", "o"].contains(word.dropLast(2).last.map(String.init) ?? "") {
                return String(word.dropLast(2))
            }
            if word.hasSuffix("s"), !word.hasSuffix("ss"), word.count > 3 { return String(word.dropLast()) }
            return String(word)
        }
    }

    /// Words of a query that say nothing about which dish ("plan dinners for the week").
    static let stopWords: Set<String> = [
        "a", "an", "and", "the", "for", "of", "with", "to", "in", "on", "my", "our", "we", "me", "please", "plan",
        "make", "meal", "dinner", "lunch", "week", "weekly", "day", "idea", "some", "few", "that", "this", "no", "without",
    ]
}
