/// A budget's state: what is spent for good and what is held by calls still in flight.
public struct BudgetUsage: Sendable, Equatable {
    public var limitCents: Double
    public var limitTokens: Int
    public var spentCents: Double
    public var spentTokens: Int
    public var reservedCents: Double
    public var reservedTokens: Int

    public init(limitCents: Double, limitTokens: Int, spentCents: Double, spentTokens: Int, reservedCents: Double, reservedTokens: Int) {
        self.limitCents = limitCents
        self.limitTokens = limitTokens
        self.spentCents = spentCents
        self.spentTokens = spentTokens
        self.reservedCents = reservedCents
        self.reservedTokens = reservedTokens
    }

    /// Whether a further reservation of this size fits. The tiny tolerance keeps sums of
    /// fractional cents (0.1 + 0.2 …) from refusing a reservation that fits exactly.
    func admits(cents: Double, tokens: Int) -> Bool {
        spentCents + reservedCents + cents <= limitCents + 1e-9 && spentTokens + reservedTokens + tokens <= limitTokens
    }
}
