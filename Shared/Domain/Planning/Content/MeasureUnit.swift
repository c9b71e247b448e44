/// The units recipes are written in, and the grocery list presents.
public enum MeasureUnit: String, Codable, Sendable, CaseIterable {
    case gram = "g"
    case kilogram = "kg"
    case millilitre = "ml"
    case litre = "l"
    case teaspoon = "tsp"
    case tablespoon = "tbsp"
    case cup
    case pinch
    case piece

    public enum Dimension: String, Sendable, Codable, CaseIterable {
        case mass, volume, count
    }

    public var dimension: Dimension {
        switch self {
        case .gram, .kilogram: .mass
        case .millilitre, .litre, .teaspoon, .tablespoon, .cup, .pinch: .volume
        case .piece: .count
        }
    }

    /// Size in the dimension's base unit (grams, millilitres, pieces). Spoons and cups are
    /// the US/culinary-metric sizes the catalogue is written with: tsp 5 ml, tbsp 15 ml,
    /// cup 240 ml (the US legal cup; the 250 ml metric cup differs by 4%, well inside the
    /// round-up the grocery list applies). A pinch is taken as 1/16 tsp.
    public var baseAmount: Double {
        switch self {
        case .gram, .millilitre, .piece: 1
        case .kilogram, .litre: 1000
        case .teaspoon: 5
        case .tablespoon: 15
        case .cup: 240
        case .pinch: 5.0 / 16.0
        }
    }

    /// Spoon measures are what a cook reaches for rather than what a shop sells; the grocery
    /// list keeps them as spoons only while every amount of an item is a spoon measure.
    public var isSpoonMeasure: Bool {
        self == .teaspoon || self == .tablespoon || self == .pinch
    }
}
