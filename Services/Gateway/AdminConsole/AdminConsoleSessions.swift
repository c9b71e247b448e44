import Crypto
import Foundation
import HearthEvents
import HearthRuntime
import Logging
import PostgresNIO

/// A signed-in console session, as its cookie found it.
struct AdminConsoleSession: Sendable, Equatable {
    let userId: UUID
    /// Every form of the session carries it; a POST without it is refused.
    let csrfToken: String
    let expiresAt: Date
}

/// The console's server-side state: one-time sign-in links, Sign in with Apple round trips, and
/// sessions. Only hashes of the secrets are stored; each secret is good once (links, Apple
/// states) or until expiry or sign-out (sessions).
struct AdminConsoleSessions: Sendable {
    let client: PostgresClient
    let lifetime: TimeInterval
    let logger: Logger

    /// How long an Apple round trip may take.
    static let appleStateLifetime: TimeInterval = 600

    /// Uses up a link: the user it was issued for, or nil when it is unknown, used or expired.
    func redeemLink(_ token: String) async throws -> UUID? {
        guard SecretToken.isWellFormed(token) else { return nil }
        for try await user in try await client.query(
            """
            UPDATE admin_console_links SET used_at = now()
            WHERE token_hash = \(SecretToken.hash(token)) AND used_at IS NULL AND expires_at > now()
            RETURNING user_id
            """, logger: logger
        ).decode(UUID.self) {
            return user
        }
        return nil
    }

    /// Starts a Sign in with Apple round trip: the `state` to send and the nonce's SHA-256 (hex),
    /// which Apple puts into the identity token.
    func beginAppleSignIn() async throws -> (state: String, nonceHash: String) {
        let state = SecretToken.random(), nonce = SecretToken.random()
        try await client.query(
            """
            INSERT INTO admin_console_apple_states (state_hash, nonce, expires_at)
            VALUES (\(SecretToken.hash(state)), \(nonce), now() + make_interval(secs => \(Self.appleStateLifetime)))
            """, logger: logger)
        return (state, Hex.encode(SHA256.hash(data: Data(nonce.utf8))))
    }

    /// Ends a round trip: the raw nonce the identity token must match, or nil for an unknown,
    /// used or expired state.
    func finishAppleSignIn(state: String) async throws -> String? {
        guard SecretToken.isWellFormed(state) else { return nil }
        for try await nonce in try await client.query(
            "DELETE FROM admin_console_apple_states WHERE state_hash = \(SecretToken.hash(state)) AND expires_at > now() RETURNING nonce",
            logger: logger
        ).decode(String.self) {
            return nonce
        }
        return nil
    }

    /// Opens a session for an administrator: the cookie's token.
    func open(for user: UUID, method: String) async throws -> String {
        let token = SecretToken.random()
        try await client.query(
            """
            INSERT INTO admin_console_sessions (session_hash, user_id, csrf_token, method, expires_at)
            VALUES (\(SecretToken.hash(token)), \(user), \(SecretToken.random()), \(method), now() + make_interval(secs => \(lifetime)))
            """, logger: logger)
        return token
    }

    /// The live session of a cookie's token, or nil (unknown, expired or signed out).
    func session(_ token: String) async throws -> AdminConsoleSession? {
        guard SecretToken.isWellFormed(token) else { return nil }
        for try await (user, csrf, expires) in try await client.query(
            """
            SELECT user_id, csrf_token, expires_at FROM admin_console_sessions
            WHERE session_hash = \(SecretToken.hash(token)) AND signed_out_at IS NULL AND expires_at > now()
            """, logger: logger
        ).decode((UUID, String, Date).self) {
            return AdminConsoleSession(userId: user, csrfToken: csrf, expiresAt: expires)
        }
        return nil
    }

    func signOut(_ token: String) async throws {
        try await client.query(
            "UPDATE admin_console_sessions SET signed_out_at = now() WHERE session_hash = \(SecretToken.hash(token)) AND signed_out_at IS NULL",
            logger: logger)
    }

    func sweeper(every interval: Duration) -> PeriodicService {
        PeriodicService("deleting expired admin console sessions and links", every: interval, logger: logger) { try await sweep() }
    }

    /// Removes what can no longer be used (links and sessions a day past expiry: a used link's
    /// second use is then still told apart in the logs from an unknown one).
    func sweep() async throws {
        try await client.query("DELETE FROM admin_console_links WHERE expires_at < now() - interval '1 day'", logger: logger)
        try await client.query("DELETE FROM admin_console_apple_states WHERE expires_at < now()", logger: logger)
        try await client.query("DELETE FROM admin_console_sessions WHERE expires_at < now() - interval '1 day'", logger: logger)
    }
}

/// One-time console sign-in links, for development: `hearthctl admin link` issues one for an
/// administrator and prints it; the gateway accepts them only outside production.
public enum AdminConsoleLink {
    /// How long a link stays good.
    public static let lifetime: TimeInterval = 900
    /// Where the link points, under the gateway's base URL.
    public static let path = "/admin/sign-in/link"

    /// A fresh link token for `user` (the caller checked who they are).
    public static func issue(for user: UUID, client: PostgresClient, logger: Logger) async throws -> String {
        let token = SecretToken.random()
        try await client.query(
            """
            INSERT INTO admin_console_links (token_hash, user_id, expires_at)
            VALUES (\(SecretToken.hash(token)), \(user), now() + make_interval(secs => \(lifetime)))
            """, logger: logger)
        return token
    }
}
