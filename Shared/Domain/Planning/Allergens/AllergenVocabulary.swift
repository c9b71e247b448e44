import Foundation
import HearthContent

/// The allergen vocabulary from `allergen_synonyms.json`: which canonical allergens a
/// person's words declare, and which ingredient names suggest each allergen.
public struct AllergenVocabulary: Sendable {
    /// In the file's order, which is also the order plans list them in.
    public let canonicalAllergens: [CanonicalAllergen]
    /// Keyed by the declaration's words joined by single spaces.
    private let declarations: [String: [CanonicalAllergen]]
    private let longestDeclaration: Int
    private let implications: [CanonicalAllergen: [CanonicalAllergen]]
    /// Parallel to `canonicalAllergens`, so screening walks them in a fixed order.
    let ingredientTerms: [[WordPhrase]]
    let termExceptions: [[WordPhrase]]

    /// Words that carry no allergen in a declaration such as "severe allergy to peanuts" or
    /// "dairy-free". Anything else the vocabulary does not know is kept as an unrecognised
    /// term, because over-excluding is safe and under-excluding is not.
    static let fillerWords: Set<String> = [
        "a", "an", "the", "and", "or", "of", "to", "in", "with", "any", "all", "some", "other", "also", "but",
        "i", "i'm", "im", "we", "we're", "my", "our", "me", "us", "he", "she", "they", "he's", "she's", "they're",
        "it", "is", "are", "am", "be", "was", "has", "have", "had", "gets", "get",
        "allergy", "allergies", "allergic", "allergen", "allergens", "intolerance", "intolerances", "intolerant",
        "sensitive", "sensitivity", "sensitivities", "reaction", "reactions", "anaphylaxis", "anaphylactic",
        "severe", "severely", "mild", "mildly", "very", "serious", "free", "no", "not", "without", "avoid",
        "avoids", "avoiding", "can't", "cannot", "eat", "eats", "contain", "contains", "containing", "food",
        "foods", "product", "products", "kind", "kinds", "type", "types", "disease", "son", "daughter",
        "child", "kid", "kids", "baby", "wife", "husband", "partner", "family",
    ]

    public init(jsonData: Data) throws(PlanningContentError) {
        let file: AllergenVocabularyFile
        do {
            file = try JSONDecoder().decode(AllergenVocabularyFile.self, from: jsonData)
        } catch {
            throw Self.malformed("cannot decode: \(error)")
        }
        guard !file.canonical.isEmpty else { throw Self.malformed("canonical list is empty") }
        let canonical = file.canonical.map(CanonicalAllergen.init(rawValue:))
        let known = Set(canonical)
        guard known.count == canonical.count else { throw Self.malformed("canonical list repeats a key") }
        func checked(_ keys: [String], in field: String) throws(PlanningContentError) -> [CanonicalAllergen] {
            let allergens = keys.map(CanonicalAllergen.init(rawValue:))
            for allergen in allergens where !known.contains(allergen) {
                throw Self.malformed("\(field) names \(allergen), which is not canonical")
            }
            return allergens
        }

        var implications: [CanonicalAllergen: [CanonicalAllergen]] = [:]
        for (key, implied) in file.implies ?? [:] {
            implications[try checked([key], in: "implies").first!] = try checked(implied, in: "implies.\(key)")
        }

        var declarations: [String: [CanonicalAllergen]] = [:]
        // Every canonical key declares itself, also spelled with spaces ("tree nut").
        for allergen in canonical {
            declarations[WordMatching.words(in: allergen.rawValue).joined(separator: " ")] = [allergen]
        }
        for (phrase, allergens) in file.declarations {
            let key = WordMatching.words(in: phrase).joined(separator: " ")
            guard !key.isEmpty, !allergens.isEmpty else { throw Self.malformed("declaration '\(phrase)' is empty") }
            // Two spellings may normalise to one key ("tree_nut", "tree nut"); union them so
            // the result never depends on dictionary order.
            let merged = Set(declarations[key] ?? []).union(try checked(allergens, in: "declarations.\(phrase)"))
            declarations[key] = canonical.filter(merged.contains)
        }

        var terms: [[WordPhrase]] = []
        var exceptions: [[WordPhrase]] = []
        for (key, _) in file.ingredientTerms { _ = try checked([key], in: "ingredient_terms") }
        for (key, _) in file.termExceptions ?? [:] { _ = try checked([key], in: "term_exceptions") }
        for allergen in canonical {
            terms.append((file.ingredientTerms[allergen.rawValue] ?? []).map(WordPhrase.init).filter { !$0.isEmpty })
            exceptions.append((file.termExceptions?[allergen.rawValue] ?? []).map(WordPhrase.init).filter { !$0.isEmpty })
        }

        canonicalAllergens = canonical
        self.declarations = declarations
        longestDeclaration = declarations.keys.map { $0.split(separator: " ").count }.max() ?? 1
        self.implications = implications
        ingredientTerms = terms
        termExceptions = exceptions
    }

    /// The vocabulary shipped in `HearthContent`.
    public static func bundled() throws -> AllergenVocabulary {
        try AllergenVocabulary(jsonData: HearthContent.data(of: .allergenSynonyms))
    }

    /// Reads what a household declared ("Peanuts", "dairy", "nut allergy", "coeliac",
    /// "kiwi") into canonical allergens plus any words the vocabulary does not know.
    ///
    /// Each declaration is read left to right, taking the longest known phrase at each word
    /// (so "peanut butter" is one phrase, and "nuts and sesame" is two), tolerating plurals.
    /// Implied allergens are added (wheat ⇒ gluten).
    public func resolve(_ declared: [String]) -> DeclaredAllergies {
        var found = Set<CanonicalAllergen>()
        var unknown = Set<String>()
        for text in declared {
            let words = WordMatching.words(in: text)
            var index = 0
            scanning: while index < words.count {
                for length in stride(from: min(longestDeclaration, words.count - index), through: 1, by: -1) {
                    if let allergens = declaration(Array(words[index..<(index + length)])) {
                        found.formUnion(allergens)
                        index += length
                        continue scanning
                    }
                }
                let word = words[index]
                if !Self.fillerWords.contains(word), word.contains(where: \.isLetter), word.count > 1 {
                    unknown.insert(word)
                }
                index += 1
            }
        }
        var pending = Array(found)
        while let allergen = pending.popLast() {
            for implied in implications[allergen] ?? [] where found.insert(implied).inserted {
                pending.append(implied)
            }
        }
        return DeclaredAllergies(
            allergens: canonicalAllergens.filter(found.contains),
            unrecognisedTerms: unknown.sorted())
    }

    /// The canonical allergens a single known phrase declares, or nil when it is not one.
    public func allergensDeclared(by phrase: String) -> [CanonicalAllergen]? {
        declaration(WordMatching.words(in: phrase))
    }

    /// The ingredient-name terms that suggest `allergen` ("peanut butter", "groundnut oil").
    public func ingredientTerms(for allergen: CanonicalAllergen) -> [String] {
        guard let position = canonicalAllergens.firstIndex(of: allergen) else { return [] }
        return ingredientTerms[position].map { $0.words.joined(separator: " ") }
    }

    private func declaration(_ words: [String]) -> [CanonicalAllergen]? {
        guard let last = words.last else { return nil }
        let stem = words.dropLast().joined(separator: " ")
        let prefix = stem.isEmpty ? "" : stem + " "
        var lastForms = [last]
        if last.hasSuffix("ies") { lastForms.append(String(last.dropLast(3)) + "y") }
        if last.hasSuffix("es") { lastForms.append(String(last.dropLast(2))) }
        if last.hasSuffix("s") { lastForms.append(String(last.dropLast())) }
        lastForms.append(last + "s")
        for form in lastForms {
            if let allergens = declarations[prefix + form] { return allergens }
        }
        return nil
    }

    private static func malformed(_ reason: String) -> PlanningContentError {
        PlanningContentError(file: HearthContent.File.allergenSynonyms.rawValue, reason: reason)
    }
}
