/// One of the allergen keys `allergen_synonyms.json` names as canonical ("peanut",
/// "tree_nut", "milk", …). A wrapper rather than an enum because the content file, not the
/// code, owns the list.
public struct CanonicalAllergen: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    CustomStringConvertible, ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }

    /// How the allergen reads in a sentence: "tree nuts", "molluscs".
    public var displayName: String {
        switch rawValue {
        case "tree_nut": "tree nuts"
        case "mollusc": "molluscs"
        default: rawValue.replacingOccurrences(of: "_", with: " ")
        }
    }
}
