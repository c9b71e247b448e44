import Foundation
import Logging
import PostgresNIO

/// Single use of invite codes, decided in Postgres before an acceptance is published
/// (`invite_claims`). The read model alone cannot decide it: it shows an acceptance only once
/// projected, after both of two racing users had read the code as unused.
struct InviteClaims: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Claims `code` for `user`. True when `user` holds it: claimed now, or by an earlier try of
    /// theirs (a retry after a failed publish goes through). False when another user holds it.
    func claim(_ code: String, for user: UUID) async throws -> Bool {
        // On a conflict the no-op update waits for a racing insert to commit, then returns the
        // holder (DO NOTHING would return no row, and a follow-up read could miss the winner).
        let rows = try await client.query(
            """
            INSERT INTO invite_claims (code, user_id) VALUES (\(code), \(user))
            ON CONFLICT (code) DO UPDATE SET user_id = invite_claims.user_id
            RETURNING user_id
            """, logger: logger)
        for try await holder in rows.decode(UUID.self) { return holder == user }
        return false
    }
}
