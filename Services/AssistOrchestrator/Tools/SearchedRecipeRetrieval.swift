import HearthDomain
import HearthKnowledge
import Logging

/// `fetch_recipes` through Hearth's knowledge search: hybrid search over the embedded recipe
/// catalogue, the household's allergens excluded inside the search. Each hit is screened again
/// with the catalogue's allergen profiles (which also catch allergy words the vocabulary does not
/// know), and the catalogue's own term search tops the list up, or answers alone when the search
/// is switched off, fails, or has nothing indexed yet (an embedding-worker that has not run).
struct SearchedRecipeRetrieval: Sendable {
    let search: KnowledgeSearch?
    let fallback: RecipeRetrieval
    let recipes: [String: Recipe]
    let profiles: [String: RecipeAllergenProfile]
    let logger: Logger

    init(search: KnowledgeSearch?, catalogue: RecipeCatalogue, matcher: AllergenMatcher, logger: Logger) {
        self.search = search
        fallback = RecipeRetrieval(catalogue: catalogue, matcher: matcher)
        recipes = Dictionary(uniqueKeysWithValues: catalogue.recipes.map { ($0.id, $0) })
        profiles = Dictionary(uniqueKeysWithValues: zip(catalogue.recipes.map(\.id), matcher.profiles(of: catalogue.recipes)))
        self.logger = logger
    }

    /// Which path answered: `search`, `search+catalogue` or `catalogue`.
    struct Found: Sendable {
        var recipes: [Recipe]
        var source: String
    }

    func search(_ query: String, avoiding declared: DeclaredAllergies, count: Int = RecipeRetrieval.defaultCount) async -> Found {
        var found: [Recipe] = []
        if let search {
            do {
                let hits = try await search.rankedDocuments(SearchQuery(
                    text: query, scope: .recipes, mode: .hybrid, limit: count * 2,
                    filters: SearchFilters(excludeAllergens: declared.allergens.map(\.rawValue))))
                found = hits.compactMap { recipes[$0.documentId] }.filter { profiles[$0.id]?.isSafe(for: declared) == true }
                found = Array(found.prefix(count))
            } catch {
                logger.warning("recipe search failed; using the catalogue search", metadata: ["error": "\(error)"])
            }
        }
        if found.count >= count { return Found(recipes: found, source: "search") }
        let have = Set(found.map(\.id))
        let topUp = fallback.search(query, avoiding: declared, count: count).filter { !have.contains($0.id) }
        let source = found.isEmpty ? "catalogue" : "search+catalogue"
        return Found(recipes: Array((found + topUp).prefix(count)), source: source)
    }
}
