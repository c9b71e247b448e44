import HearthDomain

/// The last word on allergens, after every model call: no dish of a plan about to be sent may
/// contain an allergen the household declared. The planner already guarantees it; this check
/// keeps that guarantee from resting on one component, and a violation ends the run with an
/// error instead of a plan.
struct AllergenGuard: Sendable {
    let matcher: AllergenMatcher
    /// Each catalogue recipe's allergens by id, worked out once per process.
    private let profiles: [String: RecipeAllergenProfile]

    init(catalogue: RecipeCatalogue, matcher: AllergenMatcher) {
        self.matcher = matcher
        profiles = Dictionary(
            zip(catalogue.recipes.map(\.id), matcher.profiles(of: catalogue.recipes)), uniquingKeysWith: { first, _ in first })
    }

    struct Violation: Error, CustomStringConvertible {
        let recipeId: String
        let allergens: [String]
        var description: String { "recipe \(recipeId) contains a declared allergen (\(allergens.joined(separator: ", ")))" }
    }

    func check(_ plan: MealPlan, declared allergies: [String]) throws {
        let declared = matcher.vocabulary.resolve(allergies)
        for day in plan.days {
            // A dish the catalogue does not know cannot be vouched for.
            guard let profile = profiles[day.recipe.id] else {
                throw Violation(recipeId: day.recipe.id, allergens: ["unknown recipe"])
            }
            if !profile.isSafe(for: declared) {
                throw Violation(recipeId: day.recipe.id, allergens: profile.conflicts(with: declared).map { "\($0)" })
            }
        }
    }
}
