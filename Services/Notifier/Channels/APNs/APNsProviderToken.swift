import Crypto
import Foundation
import Synchronization

/// When an APNs provider token (the ES256 JWT in `authorization: bearer`) is replaced. Apple
/// rejects tokens older than an hour and throttles providers that mint new ones more often than
/// every 20 minutes, so a token is reused for ~40 minutes and never replaced sooner than 20 —
/// not even when APNs calls it expired (a clock skew would otherwise mint one per request).
public struct ProviderTokenRefreshPolicy: Sendable, Equatable {
    public var refreshAfter: TimeInterval
    public var minimumLifetime: TimeInterval

    public init(refreshAfter: TimeInterval = 40 * 60, minimumLifetime: TimeInterval = 20 * 60) {
        self.refreshAfter = refreshAfter
        self.minimumLifetime = minimumLifetime
    }

    /// Whether a token issued at `issuedAt` must be replaced at `now`. `rejected` is true after
    /// APNs answered `ExpiredProviderToken` / `InvalidProviderToken` for it.
    public func needsNewToken(issuedAt: Date?, now: Date, rejected: Bool) -> Bool {
        guard let issuedAt else { return true }
        let age = now.timeIntervalSince(issuedAt)
        // A clock that stepped backwards makes the age negative: the token is no use then.
        if age < 0 { return true }
        if age >= refreshAfter { return true }
        return rejected && age >= minimumLifetime
    }
}

/// The APNs token-based credentials: the `.p8` key's id, the team id, and the key.
public struct APNsCredentials: Sendable {
    public let keyId: String
    public let teamId: String
    public let privateKey: P256.Signing.PrivateKey

    public init(keyId: String, teamId: String, privateKey: P256.Signing.PrivateKey) {
        self.keyId = keyId
        self.teamId = teamId
        self.privateKey = privateKey
    }

    /// Reads the PKCS#8 PEM (`.p8`) Apple hands out.
    public init(keyId: String, teamId: String, pem: String) throws {
        self.init(keyId: keyId, teamId: teamId, privateKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
    }

    /// A provider token: header `{"alg":"ES256","kid"}`, claims `{"iss","iat"}`, signed with the
    /// raw (r ‖ s) ECDSA signature JWS expects.
    public func makeToken(issuedAt: Date) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(jsonEscaped(keyId))"}"#
        let claims = #"{"iss":"\#(jsonEscaped(teamId))","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    private func jsonEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// The provider token in use, shared by every request of the process and replaced by the policy.
public final class APNsProviderToken: Sendable {
    private struct Current {
        var token: String?
        var issuedAt: Date?
        var rejected = false
    }

    private let credentials: APNsCredentials
    private let policy: ProviderTokenRefreshPolicy
    private let state = Mutex(Current())

    public init(credentials: APNsCredentials, policy: ProviderTokenRefreshPolicy = ProviderTokenRefreshPolicy()) {
        self.credentials = credentials
        self.policy = policy
    }

    /// The token to send at `now`, minted anew only when the policy says so.
    public func token(now: Date = Date()) throws -> String {
        try state.withLock { current in
            if let token = current.token, !policy.needsNewToken(issuedAt: current.issuedAt, now: now, rejected: current.rejected) {
                return token
            }
            let token = try credentials.makeToken(issuedAt: now)
            current = Current(token: token, issuedAt: now, rejected: false)
            return token
        }
    }

    /// APNs said the token is expired or invalid: the next request may mint a new one (if the
    /// policy's minimum lifetime has passed).
    public func markRejected(_ token: String) {
        state.withLock { current in
            if current.token == token { current.rejected = true }
        }
    }

    /// When the token in use was minted (for tests and logs).
    public var issuedAt: Date? { state.withLock { $0.issuedAt } }
}

/// base64url without padding (RFC 7515 §2).
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
