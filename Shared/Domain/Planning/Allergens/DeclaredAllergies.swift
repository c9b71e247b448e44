/// What a household must avoid, after reading their own words through the vocabulary.
public struct DeclaredAllergies: Codable, Sendable, Hashable {
    /// Canonical allergens, in the vocabulary's order.
    public let allergens: [CanonicalAllergen]
    /// Declared words the vocabulary does not know ("kiwi"). They still exclude any recipe
    /// with an ingredient named by the word: an unknown allergy is not a reason to ignore it.
    public let unrecognisedTerms: [String]

    public init(allergens: [CanonicalAllergen], unrecognisedTerms: [String]) {
        self.allergens = allergens
        self.unrecognisedTerms = unrecognisedTerms
    }

    public static let none = DeclaredAllergies(allergens: [], unrecognisedTerms: [])

    public var isEmpty: Bool { allergens.isEmpty && unrecognisedTerms.isEmpty }

    /// Everything avoided, as people read it: "peanut", "tree nuts", "kiwi".
    public var displayNames: [String] { allergens.map(\.displayName) + unrecognisedTerms }

    enum CodingKeys: String, CodingKey {
        case allergens
        case unrecognisedTerms = "unrecognised_terms"
    }
}
