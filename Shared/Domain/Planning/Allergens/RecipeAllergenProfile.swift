/// Everything in a recipe that can make it unsafe, from both its labels and its ingredient
/// names, precomputed so a safety check is a few set lookups.
public struct RecipeAllergenProfile: Sendable, Hashable {
    public let recipeId: String
    /// From the recipe's own `allergens` label.
    public let recipeLabels: Set<CanonicalAllergen>
    public let ingredients: [IngredientAllergenProfile]
    /// Union of every source, for the fast safe/unsafe answer.
    public let allAllergens: Set<CanonicalAllergen>
    /// Plural forms of recipe label words the vocabulary does not know.
    let unrecognisedLabelForms: Set<String>
    /// Every word form in the recipe, for the fast answer on unrecognised declarations.
    let allWordForms: Set<String>

    init(recipeId: String, recipeLabels: Set<CanonicalAllergen>, unrecognisedLabelWords: [String], ingredients: [IngredientAllergenProfile]) {
        self.recipeId = recipeId
        self.recipeLabels = recipeLabels
        unrecognisedLabelForms = Set(unrecognisedLabelWords.flatMap(WordMatching.pluralForms))
        allWordForms = ingredients.reduce(into: unrecognisedLabelForms) { $0.formUnion($1.wordForms) }
        self.ingredients = ingredients
        allAllergens = ingredients.reduce(into: recipeLabels) { all, ingredient in
            all.formUnion(ingredient.labelled)
            all.formUnion(ingredient.suggestedByName)
        }
    }

    /// Whether nothing in the recipe matches anything the household avoids.
    public func isSafe(for declared: DeclaredAllergies) -> Bool {
        Self.isSafe(
            allAllergens: allAllergens, allWordForms: allWordForms,
            avoiding: declared.allergens, termForms: declared.unrecognisedTerms.map(WordMatching.pluralForms))
    }

    /// The safety rule on a profile's two summaries, for callers that screen many recipes
    /// against one declaration and so work out the declared terms' forms once.
    static func isSafe(
        allAllergens: Set<CanonicalAllergen>, allWordForms: Set<String>, avoiding allergens: [CanonicalAllergen], termForms: [[String]]
    ) -> Bool {
        for allergen in allergens where allAllergens.contains(allergen) { return false }
        for forms in termForms where forms.contains(where: allWordForms.contains) { return false }
        return true
    }

    /// Every reason the recipe is unsafe, for explaining a rejection. Empty when safe.
    public func conflicts(with declared: DeclaredAllergies) -> [AllergenConflict] {
        var conflicts: [AllergenConflict] = []
        for allergen in declared.allergens {
            if recipeLabels.contains(allergen) {
                conflicts.append(AllergenConflict(avoided: allergen.rawValue, evidence: .recipeLabel, ingredient: nil))
            }
            for ingredient in ingredients {
                if ingredient.labelled.contains(allergen) {
                    conflicts.append(AllergenConflict(avoided: allergen.rawValue, evidence: .ingredientLabel, ingredient: ingredient.item))
                }
                if ingredient.suggestedByName.contains(allergen) {
                    conflicts.append(AllergenConflict(avoided: allergen.rawValue, evidence: .ingredientName, ingredient: ingredient.item))
                }
            }
        }
        for term in declared.unrecognisedTerms {
            if WordMatching.pluralForms(term).contains(where: unrecognisedLabelForms.contains) {
                conflicts.append(AllergenConflict(avoided: term, evidence: .recipeLabel, ingredient: nil))
            }
            for ingredient in ingredients where ingredient.mentions(term) {
                conflicts.append(AllergenConflict(avoided: term, evidence: .ingredientName, ingredient: ingredient.item))
            }
        }
        return conflicts
    }
}
