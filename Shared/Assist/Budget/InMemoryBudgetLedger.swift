/// A ledger in process memory, for tests and single-process tools. The actor serialises
/// reservations, which is what makes check-and-hold atomic here.
public actor InMemoryBudgetLedger: BudgetLedger {
    private var budgets: [String: BudgetUsage] = [:]
    private var open: [BudgetReservation.ID: BudgetReservation] = [:]

    public init() {}

    public func reserve(_ scope: BudgetScope, cents: Double, tokens: Int) -> BudgetReservation? {
        var usage = budgets[scope.key] ?? BudgetUsage(
            limitCents: scope.limitCents, limitTokens: scope.limitTokens,
            spentCents: 0, spentTokens: 0, reservedCents: 0, reservedTokens: 0)
        guard usage.admits(cents: cents, tokens: tokens) else { return nil }
        usage.reservedCents += cents
        usage.reservedTokens += tokens
        budgets[scope.key] = usage
        let reservation = BudgetReservation(scopeKey: scope.key, cents: cents, tokens: tokens)
        open[reservation.id] = reservation
        return reservation
    }

    public func settle(_ reservation: BudgetReservation, cents: Double, tokens: Int) {
        // Only the ledger's own record counts, so a double settle or a forged reservation is a no-op.
        guard let held = open.removeValue(forKey: reservation.id), var usage = budgets[held.scopeKey] else { return }
        usage.reservedCents = max(0, usage.reservedCents - held.cents)
        usage.reservedTokens = max(0, usage.reservedTokens - held.tokens)
        usage.spentCents += cents
        usage.spentTokens += tokens
        budgets[held.scopeKey] = usage
    }

    public func usage(of key: String) -> BudgetUsage? {
        budgets[key]
    }
}
