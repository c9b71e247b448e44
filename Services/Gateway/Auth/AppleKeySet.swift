import AsyncHTTPClient
import Foundation
import JWTKit
import Logging

/// Apple could not be asked for its signing keys, and none are cached.
struct AppleKeysUnavailable: Error, CustomStringConvertible {
    let reason: String
    var description: String { "Apple's signing keys are unavailable: \(reason)" }
}

/// Apple's public signing keys (the JWKS at `HEARTH_APPLE_JWKS_URL`), fetched on first use and
/// cached. Apple rotates keys, so a token naming a `kid` the cache lacks triggers a refresh, but
/// at most one such refresh per `unknownKeyCooldown`: otherwise tokens with made-up `kid`s would
/// make the gateway hammer Apple. Keys older than `maximumAge` are refreshed when next used.
actor AppleKeySet {
    private let url: String
    private let client: HTTPClient
    private let logger: Logger
    private let unknownKeyCooldown: Duration
    private let maximumAge: Duration
    /// Least time between attempts after a failed fetch.
    private let retryPause: Duration = .seconds(5)

    private var keys = JWTKeyCollection()
    private var keyIds: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?
    private var lastAttempt: ContinuousClock.Instant?
    private var lastUnknownKeyRefresh: ContinuousClock.Instant?
    private var refreshing: Task<Void, any Error>?

    init(url: String, client: HTTPClient = .shared, logger: Logger, unknownKeyCooldown: Duration = .seconds(60), maximumAge: Duration = .seconds(6 * 3600)) {
        self.url = url
        self.client = client
        self.logger = logger
        self.unknownKeyCooldown = unknownKeyCooldown
        self.maximumAge = maximumAge
    }

    /// The keys to verify a token signed with `keyId`, or nil when Apple has no such key.
    func keys(for keyId: String) async throws -> JWTKeyCollection? {
        let now = ContinuousClock.now
        let mayRetry = lastAttempt.map { now - $0 >= retryPause } ?? true
        if let fetchedAt {
            if !keyIds.contains(keyId), lastUnknownKeyRefresh.map({ now - $0 >= unknownKeyCooldown }) ?? true {
                lastUnknownKeyRefresh = now
                await refreshKeepingOldKeys()
            } else if now - fetchedAt > maximumAge, mayRetry {
                await refreshKeepingOldKeys()
            }
        } else {
            guard mayRetry else { throw AppleKeysUnavailable(reason: "the last fetch failed moments ago") }
            try await refresh()
        }
        return keyIds.contains(keyId) ? keys : nil
    }

    /// Cached keys still verify tokens Apple signed with them, so a failed refresh is only logged.
    private func refreshKeepingOldKeys() async {
        do {
            try await refresh()
        } catch {
            logger.warning("keeping cached Apple keys after a failed refresh", metadata: ["error": "\(error)"])
        }
    }

    /// One fetch at a time; callers that arrive meanwhile wait for the same one.
    private func refresh() async throws {
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.fetch() }
        refreshing = task
        defer { refreshing = nil }
        try await task.value
    }

    private func fetch() async throws {
        lastAttempt = .now
        let jwks: JWKS
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
            guard response.status == .ok else { throw AppleKeysUnavailable(reason: "\(url) answered \(response.status.code)") }
            let body = try await response.body.collect(upTo: 1 << 20)
            jwks = try JSONDecoder().decode(JWKS.self, from: Data(buffer: body))
        } catch let error as AppleKeysUnavailable {
            throw error
        } catch {
            throw AppleKeysUnavailable(reason: "\(error)")
        }
        let fresh = JWTKeyCollection()
        var ids: Set<String> = []
        for jwk in jwks.keys {
            guard let id = jwk.keyIdentifier else { continue }
            do {
                try await fresh.add(jwk: jwk)
                ids.insert(id.string)
            } catch {
                logger.warning("skipping an Apple key that cannot be used", metadata: ["kid": "\(id.string)", "error": "\(error)"])
            }
        }
        keys = fresh
        keyIds = ids
        fetchedAt = .now
        logger.info("fetched Apple's signing keys", metadata: ["count": "\(ids.count)"])
    }
}
