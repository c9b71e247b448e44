import Foundation
import HearthGoogle
import HearthPrivacy
import Logging
import Metrics

/// Google refused the user's refresh token: the link is broken until they connect again.
struct LinkBroken: Error, CustomStringConvertible {
    let userId: UUID
    let reason: String
    var description: String { "Google link of \(userId) is broken: \(reason)" }
}

/// Access tokens per linked user, kept in memory only. A token is refreshed (grant_type
/// refresh_token) when it is within `margin` of expiring, and once more when Google answers 401
/// to it. One refresh at a time per user: concurrent callers wait for the same one.
actor AccessTokens {
    struct Cached {
        let token: String
        let expiresAt: Date
    }

    let endpoint: GoogleTokenEndpoint
    let secrets: SecretBox
    let margin: TimeInterval
    let logger: Logger
    private var cache: [UUID: Cached] = [:]
    private var inFlight: [UUID: Task<Cached, any Error>] = [:]
    private let refreshes = Counter(label: "hearth_google_token_refreshes_total")

    init(endpoint: GoogleTokenEndpoint, secrets: SecretBox, margin: TimeInterval = 60, logger: Logger) {
        self.endpoint = endpoint
        self.secrets = secrets
        self.margin = margin
        self.logger = logger
    }

    /// A token good for at least `margin` more seconds. `sealedRefreshToken` reads the user's
    /// sealed refresh token (nil when they disconnected).
    func token(for user: UUID, sealedRefreshToken: @escaping @Sendable () async throws -> Data?) async throws -> String {
        if let cached = cache[user], cached.expiresAt.timeIntervalSinceNow > margin { return cached.token }
        return try await refresh(user, sealedRefreshToken: sealedRefreshToken, rejecting: nil)
    }

    /// After a 401 on `rejected`: a new token, unless another caller already replaced it.
    func replace(_ rejected: String, for user: UUID, sealedRefreshToken: @escaping @Sendable () async throws -> Data?) async throws -> String {
        if let cached = cache[user], cached.token != rejected, cached.expiresAt.timeIntervalSinceNow > margin { return cached.token }
        cache[user] = nil
        return try await refresh(user, sealedRefreshToken: sealedRefreshToken, rejecting: rejected)
    }

    func forget(_ user: UUID) {
        cache[user] = nil
    }

    private func refresh(_ user: UUID, sealedRefreshToken: @escaping @Sendable () async throws -> Data?, rejecting: String?) async throws -> String {
        if let running = inFlight[user] { return try await running.value.token }
        let endpoint = self.endpoint, secrets = self.secrets
        let task = Task<Cached, any Error> {
            guard let sealed = try await sealedRefreshToken() else { throw LinkBroken(userId: user, reason: "no stored credentials") }
            let refreshToken = try secrets.open(sealed, context: user.uuidString.lowercased())
            do {
                let grant = try await endpoint.refresh(refreshToken: refreshToken)
                return Cached(token: grant.accessToken, expiresAt: Date().addingTimeInterval(TimeInterval(grant.expiresIn ?? 3600)))
            } catch TokenEndpointError.invalidGrant(let detail) {
                throw LinkBroken(userId: user, reason: "invalid_grant: \(detail)")
            }
        }
        inFlight[user] = task
        defer { inFlight[user] = nil }
        refreshes.increment()
        let fresh = try await task.value
        cache[user] = fresh
        logger.debug("refreshed Google access token", metadata: ["user_id": "\(user)", "after_401": "\(rejecting != nil)"])
        return fresh.token
    }
}
