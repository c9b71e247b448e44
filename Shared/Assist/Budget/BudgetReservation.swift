import Foundation

/// Budget held for one model call until it is settled to what the call really used.
public struct BudgetReservation: Sendable, Hashable, Identifiable {
    public var id: UUID
    public var scopeKey: String
    public var cents: Double
    public var tokens: Int

    public init(id: UUID = UUID(), scopeKey: String, cents: Double, tokens: Int) {
        self.id = id
        self.scopeKey = scopeKey
        self.cents = cents
        self.tokens = tokens
    }
}
