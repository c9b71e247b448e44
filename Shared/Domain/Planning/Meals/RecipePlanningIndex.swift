/// What planning asks of each catalogue recipe, worked out once so planning for many
/// households does no text processing per request. Kept as parallel arrays (by catalogue
/// position) rather than an array of records: the planner's inner loops read one field at
/// a time, and copying whole records out of an array is costly in unoptimised builds.
struct RecipePlanningIndex: Sendable {
    /// Each recipe's `RecipeAllergenProfile.allAllergens` and `allWordForms`.
    let allergens: [Set<CanonicalAllergen>]
    let wordForms: [Set<String>]
    /// The same allergens as bit sets over the vocabulary's canonical list, so screening a
    /// recipe is one AND. Empty when the vocabulary has more than 64 allergens.
    let allergenBits: [UInt64]
    private let bitByAllergen: [CanonicalAllergen: UInt64]
    let searchTerms: [RecipeSearchTerms]
    let cuisineKeys: [String]
    /// Small integers standing for each recipe's main ingredient and cuisine, for cheap
    /// repeat counting.
    let mainIngredientNumbers: [Int]
    let cuisineNumbers: [Int]
    /// The per-recipe half of the jitter seed.
    let idHashes: [UInt64]
    let kidFriendly: [Bool]

    init(catalogue: RecipeCatalogue, matcher: AllergenMatcher) {
        let recipes = catalogue.recipes
        let profiles = matcher.profiles(of: recipes)
        allergens = profiles.map(\.allAllergens)
        wordForms = profiles.map(\.allWordForms)
        let canonical = matcher.vocabulary.canonicalAllergens
        let bitByAllergen = canonical.count <= 64
            ? Dictionary(uniqueKeysWithValues: canonical.enumerated().map { ($0.element, UInt64(1) << UInt64($0.offset)) })
            : [:]
        self.bitByAllergen = bitByAllergen
        allergenBits = bitByAllergen.isEmpty ? [] : allergens.map { set in
            set.reduce(UInt64(0)) { $0 | (bitByAllergen[$1] ?? 0) }
        }
        searchTerms = recipes.map(RecipeSearchTerms.init)
        cuisineKeys = recipes.map { RecipeCatalogue.cuisineKey($0.cuisine) }
        mainIngredientNumbers = Self.numbered(recipes.map(\.mainIngredient))
        cuisineNumbers = Self.numbered(cuisineKeys)
        idHashes = recipes.map { StableHash.fnv1a($0.id) }
        kidFriendly = recipes.map(\.kidFriendly)
    }

    var count: Int { idHashes.count }

    /// Catalogue positions of the recipes safe for `declared`, in catalogue order.
    func safePositions(for declared: DeclaredAllergies) -> [Int] {
        let allergens = allergens, wordForms = wordForms
        let avoided = declared.allergens, termForms = declared.unrecognisedTerms.map(WordMatching.pluralForms)
        if !allergenBits.isEmpty, let avoidedBits = bits(of: avoided) {
            let allergenBits = allergenBits
            return allergenBits.indices.filter { position in
                allergenBits[position] & avoidedBits == 0
                    && !termForms.contains { $0.contains(where: wordForms[position].contains) }
            }
        }
        return allergens.indices.filter {
            RecipeAllergenProfile.isSafe(allAllergens: allergens[$0], allWordForms: wordForms[$0], avoiding: avoided, termForms: termForms)
        }
    }

    /// nil when an allergen is not in the vocabulary, so the caller falls back to sets.
    private func bits(of allergens: [CanonicalAllergen]) -> UInt64? {
        var bits: UInt64 = 0
        for allergen in allergens {
            guard let bit = bitByAllergen[allergen] else { return nil }
            bits |= bit
        }
        return bits
    }

    /// 0, 1, 2, … in order of first appearance.
    private static func numbered(_ values: [String]) -> [Int] {
        var numbers: [String: Int] = [:]
        return values.map { value in
            if let number = numbers[value] { return number }
            numbers[value] = numbers.count
            return numbers.count - 1
        }
    }
}
