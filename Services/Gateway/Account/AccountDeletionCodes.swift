import Foundation
import HearthPrivacy
import HearthRuntime
import Logging
import PostgresNIO

/// The gateway's side of deletion confirmation codes (`account_deletion_codes`): issuing one
/// (at most `issueLimit` an hour and none after `dailyWrongTries` wrong tries in a day, each
/// spending the ones before it) and redeeming the newest
/// with `AccountDeletionCode`'s digits. The table holds no digits, only what makes a code
/// usable: its user, its expiry, its wrong tries and whether it is spent.
struct AccountDeletionCodes: Sendable {
    /// Codes a user may ask for in an hour: each is a push to every device they have.
    static let issueLimit = 5
    /// Wrong tries after which a user gets no new code that day. Checked when a code is issued, so
    /// the code issued at nine wrong tries still takes its five: at most 14 guesses a day, about a
    /// one-in-seventy-thousand chance of finding six digits.
    static let dailyWrongTries = 10

    /// What asking for a code came to.
    enum Issue: Equatable, Sendable {
        case issued(codeId: UUID, expiresAt: Date)
        case hourlyLimit
        case tooManyWrongTries
    }

    /// What a redemption came to.
    enum Redemption: Equatable, Sendable {
        case accepted
        /// The digits were wrong; `remaining` more tries before the code is spent.
        case wrong(remaining: Int)
        /// No code is waiting: never asked for, expired, used, or spent by wrong tries.
        case noCode
    }

    let client: PostgresClient
    let codes: AccountDeletionCode
    let logger: Logger

    /// A new code for `user`, unless they asked for `issueLimit` in the last hour or made
    /// `dailyWrongTries` wrong tries in the last day. Codes issued before it stop working: only
    /// the one of the newest push counts.
    func issue(for user: UUID, now: Date = Date()) async throws -> Issue {
        let codeId = UUID()
        let expiresAt = now.addingTimeInterval(AccountDeletionCode.lifetime)
        return try await client.withTransaction(logger: logger) { connection -> Issue in
            // Serialises one user's issues, so two at once cannot both pass the limits.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\("deletion-code:\(user)"), 0))", logger: logger)
            let recent = try await connection.query(
                """
                SELECT count(*) FILTER (WHERE issued_at > \(now.addingTimeInterval(-3600)))::int, coalesce(sum(failed_attempts), 0)::int
                FROM account_deletion_codes WHERE user_id = \(user) AND issued_at > \(now.addingTimeInterval(-86_400))
                """, logger: logger)
            var (issuedThisHour, wrongToday) = (0, 0)
            for try await (issued, wrong) in recent.decode((Int, Int).self) { (issuedThisHour, wrongToday) = (issued, wrong) }
            if wrongToday >= Self.dailyWrongTries { return .tooManyWrongTries }
            if issuedThisHour >= Self.issueLimit { return .hourlyLimit }
            try await connection.query(
                """
                UPDATE account_deletion_codes SET spent_at = \(now), spent_because = 'superseded'
                WHERE user_id = \(user) AND spent_at IS NULL
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO account_deletion_codes (code_id, user_id, issued_at, expires_at)
                VALUES (\(codeId), \(user), \(now), \(expiresAt))
                """, logger: logger)
            return .issued(codeId: codeId, expiresAt: expiresAt)
        }
    }

    /// Checks `candidate` against the user's newest live code and spends it when it matches; a
    /// wrong try counts against the code, and the last allowed one spends it.
    func redeem(_ candidate: String, for user: UUID, now: Date = Date()) async throws -> Redemption {
        try await client.withTransaction(logger: logger) { connection -> Redemption in
            let rows = try await connection.query(
                """
                SELECT code_id, failed_attempts FROM account_deletion_codes
                WHERE user_id = \(user) AND spent_at IS NULL AND expires_at > \(now)
                ORDER BY issued_at DESC LIMIT 1
                FOR UPDATE
                """, logger: logger)
            var live: (UUID, Int)?
            for try await row in rows.decode((UUID, Int).self) { live = row }
            guard let (codeId, failed) = live else { return .noCode }
            if codes.matches(candidate, codeId: codeId, user: user) {
                try await connection.query(
                    "UPDATE account_deletion_codes SET spent_at = \(now), spent_because = 'used' WHERE code_id = \(codeId)", logger: logger)
                return .accepted
            }
            let failures = failed + 1
            let remaining = max(0, AccountDeletionCode.attemptLimit - failures)
            try await connection.query(
                """
                UPDATE account_deletion_codes SET failed_attempts = \(failures),
                    spent_at = CASE WHEN \(remaining) = 0 THEN \(now) END,
                    spent_because = CASE WHEN \(remaining) = 0 THEN 'too_many_attempts' END
                WHERE code_id = \(codeId)
                """, logger: logger)
            return .wrong(remaining: remaining)
        }
    }

    /// Deletes codes a day past their expiry: nothing can use them, and the table stays small.
    func sweepExpired(now: Date = Date()) async throws {
        try await client.query("DELETE FROM account_deletion_codes WHERE expires_at < \(now.addingTimeInterval(-86_400))", logger: logger)
    }
}
