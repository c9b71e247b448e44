import Foundation
import HearthContent
import HearthDomain

/// A second, deliberately separate reading of `allergen_synonyms.json` used to check plans:
/// it parses the file with `JSONSerialization`, matches terms by substring search with
/// letter boundaries (the rule `validate.py` uses), and never calls the code under test.
struct IndependentAllergenOracle {
    private let declarations: [String: [String]]
    private let implies: [String: [String]]
    private let terms: [String: [String]]
    private let exceptions: [String: [String]]

    init() throws {
        let json = try JSONSerialization.jsonObject(with: HearthContent.data(of: .allergenSynonyms)) as! [String: Any]
        declarations = json["declarations"] as! [String: [String]]
        implies = json["implies"] as? [String: [String]] ?? [:]
        terms = json["ingredient_terms"] as! [String: [String]]
        exceptions = json["term_exceptions"] as? [String: [String]] ?? [:]
        let canonical = json["canonical"] as! [String]
        canonicalAllergens = canonical
        var withSelf = declarations
        for key in canonical where withSelf[key] == nil { withSelf[key] = [key] }
        self.declarationsWithCanonical = withSelf
    }

    private let declarationsWithCanonical: [String: [String]]
    let canonicalAllergens: [String]

    /// The canonical allergens a single vocabulary phrase declares, or nil for a word the
    /// vocabulary does not know (which the plan must then avoid by name).
    func canonical(forDeclaration phrase: String) -> Set<String>? {
        let key = phrase.trimmingCharacters(in: .whitespaces).lowercased()
        guard var found = declarationsWithCanonical[key].map(Set.init) else { return nil }
        for allergen in found { found.formUnion(implies[allergen] ?? []) }
        return found
    }

    /// Whether `term` occurs in `name` as whole words, allowing a plural "s" or "es".
    static func contains(_ name: String, term: String) -> Bool {
        let name = Array(name.lowercased())
        let term = Array(term.lowercased())
        guard !term.isEmpty, name.count >= term.count else { return false }
        func boundary(_ index: Int) -> Bool { index >= name.count || !name[index].isLetter }
        for start in 0...(name.count - term.count) where Array(name[start..<(start + term.count)]) == term {
            if start > 0 && name[start - 1].isLetter { continue }
            let end = start + term.count
            if boundary(end) { return true }
            if name[end] == "s" && boundary(end + 1) { return true }
            if end + 1 < name.count && name[end] == "e" && name[end + 1] == "s" && boundary(end + 2) { return true }
        }
        return false
    }

    /// Whether an ingredient name suggests `allergen` by the file's terms, unless the name
    /// is one of the allergen's exceptions.
    func nameSuggests(_ name: String, allergen: String) -> Bool {
        if (exceptions[allergen] ?? []).contains(where: { Self.contains(name, term: $0) }) { return false }
        return (terms[allergen] ?? []).contains { Self.contains(name, term: $0) }
    }
}
