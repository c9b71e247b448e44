/// A shopping list grouped by aisle. Encodes as
/// `{"aisles": {"produce": [{"item", "quantity", "unit", "recipes"}], …}, "aisle_order":
/// ["produce", …]}`. The aisles are written in `GroceryAisleOrder`, but JSON objects are
/// unordered and Foundation's encoder on Linux does not keep key order, so `aisle_order`
/// carries the order for clients.
public struct GroceryList: Codable, Sendable, Hashable {
    public let aisles: [GroceryAisle]

    public init(aisles: [GroceryAisle]) {
        self.aisles = aisles
    }

    public var lines: [GroceryLine] { aisles.flatMap(\.lines) }

    public func lines(for item: String) -> [GroceryLine] {
        lines.filter { $0.item == item }
    }

    public var isEmpty: Bool { aisles.isEmpty }

    private enum CodingKeys: String, CodingKey {
        case aisles
        case aisleOrder = "aisle_order"
    }

    private struct AisleKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let byAisle = try container.nestedContainer(keyedBy: AisleKey.self, forKey: .aisles)
        let names = byAisle.allKeys.map(\.stringValue)
        let order = try container.decodeIfPresent([String].self, forKey: .aisleOrder)
        guard order.map({ Set($0) == Set(names) && $0.count == names.count }) ?? true else {
            throw DecodingError.dataCorruptedError(forKey: .aisleOrder, in: container, debugDescription: "aisle_order must list each aisle once")
        }
        aisles = try (order ?? GroceryAisleOrder.sorted(names)).map { name in
            GroceryAisle(name: name, lines: try byAisle.decode([GroceryLine].self, forKey: AisleKey(stringValue: name)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var byAisle = container.nestedContainer(keyedBy: AisleKey.self, forKey: .aisles)
        for aisle in aisles {
            try byAisle.encode(aisle.lines, forKey: AisleKey(stringValue: aisle.name))
        }
        try container.encode(aisles.map(\.name), forKey: .aisleOrder)
    }
}
