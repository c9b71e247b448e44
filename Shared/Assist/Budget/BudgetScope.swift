import Foundation

/// What a set of model calls may spend together — usually one run (`key` = run id), but any key
/// works (a user's day, a household's month). The limits are fixed by the first reservation
/// made under the key; later scopes with the same key and other limits do not move them.
public struct BudgetScope: Sendable, Hashable {
    public var key: String
    public var limitCents: Double
    public var limitTokens: Int
    /// A wider budget every call under this one also spends from (a user's month): a call is
    /// made only when both hold it.
    public var cap: SpendCap?

    /// The seed's per-run caps: 10 cents and 2,000 tokens.
    public static let defaultLimitCents: Double = 10
    public static let defaultLimitTokens = 2000

    public init(
        key: String, limitCents: Double = BudgetScope.defaultLimitCents, limitTokens: Int = BudgetScope.defaultLimitTokens, cap: SpendCap? = nil
    ) {
        self.key = key
        self.limitCents = limitCents
        self.limitTokens = limitTokens
        self.cap = cap
    }
}

/// A spend limit in cents over a longer span than one run (a user's calendar month), kept by the
/// same ledger with the same reservations as the run's own budget.
public struct SpendCap: Sendable, Hashable {
    public var key: String
    public var limitCents: Double

    public init(key: String, limitCents: Double) {
        self.key = key
        self.limitCents = limitCents
    }

    /// The cap's own scope: cents only (tokens are the run's business).
    var scope: BudgetScope { BudgetScope(key: key, limitCents: limitCents, limitTokens: Int(Int32.max)) }

    /// `user-month:<user>:<yyyy-mm>` in UTC: one budget per user and calendar month.
    public static func monthly(user: String, limitCents: Double, at date: Date) -> SpendCap {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: date)
        return SpendCap(key: String(format: "user-month:%@:%04d-%02d", user, parts.year ?? 0, parts.month ?? 0), limitCents: limitCents)
    }
}
