/// What a set of model calls may spend together — usually one run (`key` = run id), but any key
/// works (a user's day, a household's month). The limits are fixed by the first reservation
/// made under the key; later scopes with the same key and other limits do not move them.
public struct BudgetScope: Sendable, Hashable {
    public var key: String
    public var limitCents: Double
    public var limitTokens: Int

    /// The seed's per-run caps: 10 cents and 2,000 tokens.
    public static let defaultLimitCents: Double = 10
    public static let defaultLimitTokens = 2000

    public init(key: String, limitCents: Double = BudgetScope.defaultLimitCents, limitTokens: Int = BudgetScope.defaultLimitTokens) {
        self.key = key
        self.limitCents = limitCents
        self.limitTokens = limitTokens
    }
}
