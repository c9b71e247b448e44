/// One aisle's lines, sorted by item.
public struct GroceryAisle: Sendable, Hashable {
    public let name: String
    public let lines: [GroceryLine]

    public init(name: String, lines: [GroceryLine]) {
        self.name = name
        self.lines = lines
    }
}
