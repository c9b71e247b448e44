import Crypto
import Foundation
import HearthRuntime
import HearthStore
import Logging
import PostgresNIO

/// A refresh token as the client holds it: `hrt_` and 32 random bytes, base64url. Only its
/// SHA-256 is stored, so the table leaks nothing a client could present.
struct RefreshToken: Sendable, Equatable {
    static let prefix = "hrt_"
    let text: String

    static func generate() -> RefreshToken {
        RefreshToken(text: prefix + SecretToken.random())
    }

    /// The text a client sent, if it has the shape of one (anything else is unknown without a query).
    init?(presented: String) {
        guard presented.hasPrefix(Self.prefix), SecretToken.isWellFormed(String(presented.dropFirst(Self.prefix.count))) else { return nil }
        text = presented
    }

    private init(text: String) {
        self.text = text
    }

    var hash: Data { SecretToken.hash(text) }
}

/// One sign-in and the refresh tokens it hands out, one after another (a token family).
struct AuthSession: Sendable, Equatable {
    let sessionId: UUID
    let userId: UUID
    let signedInAt: Date
}

/// What presenting a refresh token came to.
enum RefreshOutcome: Sendable, Equatable {
    /// The token was current: it is used up, and `next` replaces it.
    case rotated(AuthSession, next: RefreshToken, expiresAt: Date)
    /// No such token, or it expired, or its session had ended.
    case refused(String)
    /// The token had been used before: someone else holds a copy, so the whole session ended.
    case reused(AuthSession)
}

/// Why a session ended (`auth_sessions.revoked_reason`).
enum SessionEnd: String, Sendable {
    case logout
    case logoutEverywhere = "logout_everywhere"
    case refreshTokenReused = "refresh_token_reused"
    /// The account's deletion was asked after the session began.
    case accountDeletion = "account_deletion"
}

/// Sign-in sessions and their rotating refresh tokens (`auth_sessions`, `auth_refresh_tokens`),
/// and whether an access token's session still stands.
///
/// The gateway's own state, not a read model of events: a refresh happens every few minutes per
/// client and its token must never reach Kafka or the archive. Every gateway reads the same rows;
/// ending a session announces `auth_sessions` on the read-model channel, so each gateway's cache
/// of ended sessions (`isRevoked`) drops what it knew and the next request of that session reads
/// the row again: an access token stops working within one notification's delivery.
struct AuthSessions: Sendable {
    static let readModel = "auth_sessions"

    let client: PostgresClient
    let logger: Logger
    /// How long a refresh token may wait to be used (each rotation starts a new one).
    let refreshLifetime: TimeInterval
    private let revoked: ReadModelCache<UUID, Bool>

    init(client: PostgresClient, changes: ReadModelChangeFeed?, refreshLifetime: TimeInterval, logger: Logger) {
        self.client = client
        self.logger = logger
        self.refreshLifetime = refreshLifetime
        revoked = ReadModelCache(capacity: 100_000, watching: changes.map { [$0.generation(of: Self.readModel)] })
    }

    /// Opens a session for a sign-in that just happened, with its first refresh token.
    func open(for user: UUID, now: Date = Date()) async throws -> (session: AuthSession, refresh: RefreshToken, expiresAt: Date) {
        let session = AuthSession(sessionId: UUID(), userId: user, signedInAt: now)
        let token = RefreshToken.generate()
        let expiresAt = now.addingTimeInterval(refreshLifetime)
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "INSERT INTO auth_sessions (session_id, user_id, signed_in_at) VALUES (\(session.sessionId), \(user), \(now))", logger: logger)
            try await connection.query(
                """
                INSERT INTO auth_refresh_tokens (token_hash, session_id, issued_at, expires_at)
                VALUES (\(token.hash), \(session.sessionId), \(now), \(expiresAt))
                """, logger: logger)
        }
        return (session, token, expiresAt)
    }

    /// Uses `presented` once. A current token is replaced by a new one of the same session; a
    /// token used before ends its session (whoever presents it, the thief or the owner, the other
    /// holds a copy) and every token of it. `endedBefore` answers, for the session's user, the
    /// moment before which sessions no longer count (the account's deletion was asked): such a
    /// session ends here, before its token is used up.
    func refresh(
        _ presented: RefreshToken, now: Date = Date(), endedBefore: @Sendable (UUID) async throws -> Date?
    ) async throws -> RefreshOutcome {
        let outcome = try await client.withTransaction(logger: logger) { connection -> RefreshOutcome in
            let rows = try await connection.query(
                """
                SELECT s.session_id, s.user_id, s.signed_in_at, s.revoked_at IS NOT NULL, t.expires_at, t.used_at IS NOT NULL
                FROM auth_refresh_tokens t JOIN auth_sessions s ON s.session_id = t.session_id
                WHERE t.token_hash = \(presented.hash)
                FOR UPDATE OF t, s
                """, logger: logger)
            var found: (AuthSession, revoked: Bool, expiresAt: Date, used: Bool)?
            for try await (session, user, signedInAt, revoked, expiresAt, used) in rows.decode((UUID, UUID, Date, Bool, Date, Bool).self) {
                found = (AuthSession(sessionId: session, userId: user, signedInAt: signedInAt), revoked, expiresAt, used)
            }
            guard let (session, revoked, expiresAt, used) = found else { return .refused("unknown refresh token") }
            if revoked { return .refused("this session has ended; sign in again") }
            if expiresAt <= now { return .refused("the refresh token expired; sign in again") }
            if used {
                try await Self.end(.one(session.sessionId, of: session.userId), because: .refreshTokenReused, now: now, on: connection, logger: logger)
                return .reused(session)
            }
            if let cutoff = try await endedBefore(session.userId), session.signedInAt <= cutoff {
                try await Self.end(.one(session.sessionId, of: session.userId), because: .accountDeletion, now: now, on: connection, logger: logger)
                return .refused("this session ended when the account's deletion was requested; sign in again")
            }
            let next = RefreshToken.generate()
            let nextExpiry = now.addingTimeInterval(refreshLifetime)
            try await connection.query("UPDATE auth_refresh_tokens SET used_at = \(now) WHERE token_hash = \(presented.hash)", logger: logger)
            try await connection.query(
                """
                INSERT INTO auth_refresh_tokens (token_hash, session_id, issued_at, expires_at)
                VALUES (\(next.hash), \(session.sessionId), \(now), \(nextExpiry))
                """, logger: logger)
            try await connection.query("UPDATE auth_sessions SET last_refreshed_at = \(now) WHERE session_id = \(session.sessionId)", logger: logger)
            return .rotated(session, next: next, expiresAt: nextExpiry)
        }
        if case .reused(let session) = outcome {
            markEnded([session.sessionId])
            logger.warning("a used refresh token was presented again: its session ended", metadata: [
                "session_id": "\(session.sessionId.uuidString.lowercased())", "user_id": "\(session.userId.uuidString.lowercased())",
            ])
        }
        return outcome
    }

    /// Ends one session of `user` (nothing when it is not theirs or already ended).
    func end(_ session: UUID, of user: UUID, because reason: SessionEnd, now: Date = Date()) async throws {
        let ended = try await client.withTransaction(logger: logger) { connection in
            try await Self.end(.one(session, of: user), because: reason, now: now, on: connection, logger: logger)
        }
        markEnded(ended)
    }

    /// Ends every open session of `user`.
    func endAll(of user: UUID, because reason: SessionEnd, now: Date = Date()) async throws {
        let ended = try await client.withTransaction(logger: logger) { connection in
            // Every session of the person ends, the admin console's too: they are the same
            // person's credentials. (An erasure deletes them, `forget`.)
            try await connection.query(
                "UPDATE admin_console_sessions SET signed_out_at = \(now) WHERE user_id = \(user) AND signed_out_at IS NULL", logger: logger)
            return try await Self.end(.every(of: user), because: reason, now: now, on: connection, logger: logger)
        }
        markEnded(ended)
    }

    /// An ended session never opens again, so this gateway knows it at once, without waiting for
    /// its own announcement to come back (which then empties the cache, and the row says the same).
    private func markEnded(_ sessions: [UUID]) {
        guard let stamp = revoked.readStamp else { return }
        for session in sessions { revoked.store(true, for: session, readUnder: stamp) }
    }

    /// Deletes what can no longer be used: refresh tokens past their expiry, and sessions ended,
    /// or idle past a refresh token's lifetime, for that long. Every gateway may run it.
    func sweep(now: Date = Date()) async throws {
        let idle = now.addingTimeInterval(-refreshLifetime)
        try await client.query("DELETE FROM auth_refresh_tokens WHERE expires_at < \(now)", logger: logger)
        try await client.query(
            """
            DELETE FROM auth_sessions
            WHERE (revoked_at IS NOT NULL AND revoked_at < \(idle)) OR COALESCE(last_refreshed_at, signed_in_at) < \(idle)
            """, logger: logger)
    }

    /// Forgets every session of an erased user (their refresh tokens go with them).
    func forget(_ user: UUID) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("DELETE FROM auth_sessions WHERE user_id = \(user)", logger: logger)
            // The admin console's sessions and sign-in links of the account go with it.
            try await connection.query("DELETE FROM admin_console_sessions WHERE user_id = \(user)", logger: logger)
            try await connection.query("DELETE FROM admin_console_links WHERE user_id = \(user)", logger: logger)
            try await ReadModelChanges.announce(Self.readModel, on: connection, logger: logger)
        }
    }

    /// Whether the session an access token names has ended. A session this gateway has no row of
    /// (a token minted elsewhere with the same key) counts as ended.
    func isRevoked(_ session: UUID) async throws -> Bool {
        if let known = revoked.value(for: session) { return known }
        let stamp = revoked.readStamp
        var ended = true
        let rows = try await client.query("SELECT revoked_at IS NOT NULL FROM auth_sessions WHERE session_id = \(session)", logger: logger)
        for try await value in rows.decode(Bool.self) { ended = value }
        if let stamp { revoked.store(ended, for: session, readUnder: stamp) }
        return ended
    }

    private enum Ended {
        case one(UUID, of: UUID)
        case every(of: UUID)
    }

    /// The one UPDATE that ends sessions, and its announcement; answers the sessions it ended.
    @discardableResult
    private static func end(
        _ ended: Ended, because reason: SessionEnd, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> [UUID] {
        let rows: PostgresRowSequence
        switch ended {
        case .one(let session, let user):
            rows = try await connection.query(
                """
                UPDATE auth_sessions SET revoked_at = \(now), revoked_reason = \(reason.rawValue)
                WHERE session_id = \(session) AND user_id = \(user) AND revoked_at IS NULL RETURNING session_id
                """, logger: logger)
        case .every(let user):
            rows = try await connection.query(
                """
                UPDATE auth_sessions SET revoked_at = \(now), revoked_reason = \(reason.rawValue)
                WHERE user_id = \(user) AND revoked_at IS NULL RETURNING session_id
                """, logger: logger)
        }
        var sessions: [UUID] = []
        for try await session in rows.decode(UUID.self) { sessions.append(session) }
        try await ReadModelChanges.announce(readModel, on: connection, logger: logger)
        return sessions
    }
}
