import Foundation
import HearthRuntime
import HearthStore
import Logging
import PostgresNIO

/// Whether a verified token may still be used: its session has not ended (`AuthSessions`: logout,
/// a reused refresh token) and its user's account lets it in, the deletion side of authentication.
///
/// Asking to delete the account ends every session at once (tokens issued before that second are
/// refused, for good: a restored account signs in again), and while the deletion is pending only
/// the routes that show, restore or confirm it answer. Read from `users` (kept by the users
/// projection) through a cache emptied whenever that read model changes, so a request costs a
/// dictionary lookup.
struct AccountStanding: Sendable {
    struct Standing: Sendable, Equatable {
        /// Tokens issued before this second are refused.
        var sessionsValidAfter: Date?
        var deletionPending: Bool

        static let unrestricted = Standing(sessionsValidAfter: nil, deletionPending: false)
    }

    /// What a user whose deletion is pending may still call.
    static let allowedWhilePending: Set<String> = ["GET /v1/me", "POST /v1/me/restore", "DELETE /v1/me"]

    let client: PostgresClient
    let sessions: AuthSessions
    let logger: Logger
    let cache: ReadModelCache<UUID, Standing>

    init(client: PostgresClient, sessions: AuthSessions, changes: ReadModelChangeFeed?, logger: Logger) {
        self.client = client
        self.sessions = sessions
        self.logger = logger
        cache = ReadModelCache(capacity: 100_000, watching: changes.map { [$0.generation(of: GatewayProjection.users)] })
    }

    func standing(of user: UUID) async throws -> Standing {
        if let cached = cache.value(for: user) { return cached }
        let stamp = cache.readStamp
        var standing = Standing.unrestricted
        let rows = try await client.query(
            """
            SELECT sessions_valid_after, deletion_requested_at IS NOT NULL AND erased_at IS NULL
            FROM users WHERE user_id = \(user)
            """, logger: logger)
        for try await (validAfter, pending) in rows.decode((Date?, Bool).self) {
            standing = Standing(sessionsValidAfter: validAfter, deletionPending: pending)
        }
        if let stamp { cache.store(standing, for: user, readUnder: stamp) }
        return standing
    }

    /// Throws the 401 or 403 a request with this token gets, if any.
    func check(_ token: VerifiedToken, method: String, path: String) async throws {
        if let session = token.sessionId, try await sessions.isRevoked(session) {
            throw BearerAuthentication.unauthorized("this session has ended (signed out); sign in again")
        }
        let standing = try await standing(of: token.userId)
        if let validAfter = standing.sessionsValidAfter {
            // A token's `iat` is in whole seconds: one issued in the second of the request counts
            // as before it (a sign-in right after a deletion is refused for that second).
            guard let issuedAt = token.issuedAt, issuedAt > validAfter else {
                throw BearerAuthentication.unauthorized("this session ended when the account's deletion was requested; sign in again")
            }
        }
        if standing.deletionPending, !Self.allowedWhilePending.contains("\(method) \(path)") {
            throw APIError(
                .forbidden, code: "account_pending_deletion",
                message: "this account is being deleted; POST /v1/me/restore keeps it, GET /v1/me says when it is erased")
        }
    }
}
