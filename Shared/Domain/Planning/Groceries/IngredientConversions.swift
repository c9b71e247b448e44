/// Ingredient-specific conversions between dimensions, used only when one item is measured
/// in more than one dimension across a plan (rice in grams in one recipe and cups in
/// another). Items not listed here keep one grocery line per dimension instead: adding
/// grams to cups without knowing the item would be a guess.
public struct IngredientConversions: Sendable {
    /// Grams per millilitre of the item as measured in a cup or spoon.
    public let gramsPerMillilitre: [String: Double]
    /// Grams per typical piece.
    public let gramsPerPiece: [String: Double]

    public init(gramsPerMillilitre: [String: Double], gramsPerPiece: [String: Double]) {
        self.gramsPerMillilitre = gramsPerMillilitre
        self.gramsPerPiece = gramsPerPiece
    }

    /// Kitchen-reference densities (a US cup of uncooked long-grain rice ≈ 190 g, of
    /// all-purpose flour ≈ 125 g, of frozen peas ≈ 135 g; a tablespoon of grated ginger ≈ 6 g)
    /// and typical piece weights for produce sold loose.
    public static let standard = IngredientConversions(
        gramsPerMillilitre: [
            "rice": 0.8, "long-grain rice": 0.8, "basmati rice": 0.8, "jasmine rice": 0.8,
            "short-grain rice": 0.85, "arborio rice": 0.85, "paella rice": 0.85,
            "flour": 0.53, "all-purpose flour": 0.53,
            "sugar": 0.85, "brown sugar": 0.9, "honey": 1.42, "cornstarch": 0.54,
            "frozen peas": 0.56, "fresh ginger": 0.4, "red lentils": 0.8, "green lentils": 0.8,
            "couscous": 0.73, "oats": 0.38, "polenta": 0.68, "salt": 1.2,
        ],
        gramsPerPiece: [
            "potato": 200, "sweet potato": 250, "onion": 150, "red onion": 150, "carrot": 80,
            "tomato": 120, "zucchini": 200, "eggplant": 300, "apple": 180, "pear": 180,
            "parsnip": 120, "leek": 200,
        ])

    /// The item's density, by exact name or else by its last word ("wild rice" → rice).
    public func gramsPerMillilitre(of item: String) -> Double? {
        lookup(item, in: gramsPerMillilitre)
    }

    public func gramsPerPiece(of item: String) -> Double? {
        lookup(item, in: gramsPerPiece)
    }

    private func lookup(_ item: String, in table: [String: Double]) -> Double? {
        let name = item.lowercased()
        if let value = table[name] { return value }
        if let lastWord = WordMatching.words(in: name).last, lastWord != name { return table[lastWord] }
        return nil
    }
}
