import Foundation
import Logging
import PostgresNIO

/// Budgets in Postgres (`run_budgets`, `run_budget_reservations`, created by the
/// assist-orchestrator's migration `0003_run_budgets.sql`), shared by every instance of the
/// orchestrator. Reservation is one statement — an upsert whose update only applies while
/// spent + reserved + the new amount fit the limits — so Postgres's row lock, not the caller,
/// decides which of many concurrent calls get budget.
public struct PostgresBudgetLedger: BudgetLedger {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func reserve(_ scope: BudgetScope, cents: Double, tokens: Int) async throws -> BudgetReservation? {
        let reservation = BudgetReservation(scopeKey: scope.key, cents: cents, tokens: tokens)
        // The SELECT … WHERE refuses a first reservation that exceeds the limits on its own; the
        // ON CONFLICT … WHERE is the check-and-hold against an existing budget, evaluated on the
        // locked, latest version of the row.
        let rows = try await client.query(
            """
            WITH held AS (
                INSERT INTO run_budgets AS b (key, limit_cents, limit_tokens, reserved_cents, reserved_tokens)
                SELECT \(scope.key), \(scope.limitCents)::numeric, \(scope.limitTokens), \(cents)::numeric, \(tokens)
                 WHERE \(cents)::numeric <= \(scope.limitCents)::numeric AND \(tokens) <= \(scope.limitTokens)
                ON CONFLICT (key) DO UPDATE
                   SET reserved_cents = b.reserved_cents + EXCLUDED.reserved_cents,
                       reserved_tokens = b.reserved_tokens + EXCLUDED.reserved_tokens,
                       updated_at = now()
                 WHERE b.spent_cents + b.reserved_cents + EXCLUDED.reserved_cents <= b.limit_cents
                   AND b.spent_tokens + b.reserved_tokens + EXCLUDED.reserved_tokens <= b.limit_tokens
                RETURNING b.key
            )
            INSERT INTO run_budget_reservations (id, key, cents, tokens)
            SELECT \(reservation.id), key, \(cents)::numeric, \(tokens) FROM held
            RETURNING id
            """,
            logger: logger
        )
        for try await _ in rows.decode(UUID.self) { return reservation }
        return nil
    }

    public func settle(_ reservation: BudgetReservation, cents: Double, tokens: Int) async throws {
        // Deleting the reservation row first makes the release happen at most once and use the
        // amounts the ledger recorded, not the ones the caller hands back.
        try await client.query(
            """
            WITH released AS (
                DELETE FROM run_budget_reservations WHERE id = \(reservation.id) RETURNING key, cents, tokens
            )
            UPDATE run_budgets b
               SET reserved_cents = GREATEST(b.reserved_cents - r.cents, 0),
                   reserved_tokens = GREATEST(b.reserved_tokens - r.tokens, 0),
                   spent_cents = b.spent_cents + \(cents)::numeric,
                   spent_tokens = b.spent_tokens + \(tokens),
                   updated_at = now()
              FROM released r
             WHERE b.key = r.key
            """,
            logger: logger
        )
    }

    public func usage(of key: String) async throws -> BudgetUsage? {
        let rows = try await client.query(
            """
            SELECT limit_cents::float8, limit_tokens, spent_cents::float8, spent_tokens, reserved_cents::float8, reserved_tokens
              FROM run_budgets WHERE key = \(key)
            """,
            logger: logger
        )
        for try await (limitCents, limitTokens, spentCents, spentTokens, reservedCents, reservedTokens)
            in rows.decode((Double, Int, Double, Int, Double, Int).self) {
            return BudgetUsage(
                limitCents: limitCents, limitTokens: limitTokens, spentCents: spentCents, spentTokens: spentTokens,
                reservedCents: reservedCents, reservedTokens: reservedTokens)
        }
        return nil
    }

    /// Charges in full every reservation older than `age` and releases it. A reservation that
    /// old belongs to a call whose process died before settling; its real usage is unknown, so
    /// the budget-safe assumption is that it used everything it held. Returns how many expired.
    @discardableResult
    public func expireReservations(olderThan age: Duration) async throws -> Int {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        let rows = try await client.query(
            """
            WITH expired AS (
                DELETE FROM run_budget_reservations
                 WHERE created_at < now() - make_interval(secs => \(seconds))
                RETURNING key, cents, tokens
            ), totals AS (
                SELECT key, sum(cents) AS cents, sum(tokens) AS tokens, count(*) AS n FROM expired GROUP BY key
            ), charged AS (
                UPDATE run_budgets b
                   SET reserved_cents = GREATEST(b.reserved_cents - t.cents, 0),
                       reserved_tokens = GREATEST(b.reserved_tokens - t.tokens, 0),
                       spent_cents = b.spent_cents + t.cents,
                       spent_tokens = b.spent_tokens + t.tokens,
                       updated_at = now()
                  FROM totals t
                 WHERE b.key = t.key
                RETURNING t.n
            )
            SELECT COALESCE(sum(n), 0)::bigint FROM charged
            """,
            logger: logger
        )
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}
