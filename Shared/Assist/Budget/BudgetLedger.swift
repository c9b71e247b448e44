/// Where budgets are kept. Reservation is check-and-hold in one atomic step, so any number of
/// concurrent calls against one budget never hold more than it allows.
public protocol BudgetLedger: Sendable {
    /// Holds `cents` and `tokens` against the scope if spent + reserved + these stay within its
    /// limits; `nil` when they would not (the caller skips that provider).
    func reserve(_ scope: BudgetScope, cents: Double, tokens: Int) async throws -> BudgetReservation?
    /// Releases the reservation and records what the call really used (which may be more or less
    /// than was held). Settling the same reservation twice changes nothing.
    func settle(_ reservation: BudgetReservation, cents: Double, tokens: Int) async throws
}
