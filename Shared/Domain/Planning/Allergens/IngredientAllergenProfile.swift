/// What one ingredient could carry, worked out once so screening many households against
/// the same recipe is cheap.
public struct IngredientAllergenProfile: Sendable, Hashable {
    public let item: String
    /// From the ingredient's `allergens` label.
    public let labelled: Set<CanonicalAllergen>
    /// Suggested by its name through `ingredient_terms`, minus `term_exceptions`.
    public let suggestedByName: Set<CanonicalAllergen>
    /// Plural forms of the name's words and of any label words the vocabulary does not know,
    /// matched against households' unrecognised declarations.
    let wordForms: Set<String>

    init(item: String, labelled: Set<CanonicalAllergen>, suggestedByName: Set<CanonicalAllergen>, words: [String]) {
        self.item = item
        self.labelled = labelled
        self.suggestedByName = suggestedByName
        wordForms = Set(words.flatMap(WordMatching.pluralForms))
    }

    func mentions(_ term: String) -> Bool {
        WordMatching.pluralForms(term).contains(where: wordForms.contains)
    }
}
