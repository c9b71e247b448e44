/// The JSON shape of `allergen_synonyms.json`.
struct AllergenVocabularyFile: Decodable {
    let canonical: [String]
    let implies: [String: [String]]?
    let declarations: [String: [String]]
    let ingredientTerms: [String: [String]]
    let termExceptions: [String: [String]]?

    enum CodingKeys: String, CodingKey {
        case canonical, implies, declarations
        case ingredientTerms = "ingredient_terms"
        case termExceptions = "term_exceptions"
    }
}
