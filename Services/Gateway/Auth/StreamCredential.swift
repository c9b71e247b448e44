import Foundation
import HearthRuntime

/// The bearer token a long-lived stream was opened with, checked again while the stream runs:
/// once the token's session has ended (logout, a reused refresh token) or the token has expired,
/// the stream closes with `event: closed` (`signed_out`), and the client reconnects with a fresh
/// token (resuming with `Last-Event-ID`). A session whose state cannot be read just now (Postgres
/// away) is taken as standing: a stream is not cut for a hiccup.
struct StreamCredential: Sendable {
    static let closedFrame = "event: closed\ndata: {\"reason\":\"signed_out\"}\n\n"

    let sessionId: UUID?
    let expiresAt: Date?
    let sessions: AuthSessions

    init(_ context: HearthRequestContext, sessions: AuthSessions) {
        sessionId = context.sessionId
        expiresAt = context.tokenExpiresAt
        self.sessions = sessions
    }

    func stands(now: Date = Date()) async -> Bool {
        if let expiresAt, now >= expiresAt { return false }
        guard let sessionId else { return true }
        return (try? await sessions.isRevoked(sessionId)) != true
    }
}
