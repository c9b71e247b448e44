import Foundation

/// The registered claims of a token whose signature has been checked, in plain types.
public struct TokenClaims: Equatable, Sendable {
    public var issuer: String?
    public var audiences: [String]
    public var subject: String?
    public var expiresAt: Date?
    public var notBefore: Date?

    public init(issuer: String?, audiences: [String], subject: String?, expiresAt: Date?, notBefore: Date?) {
        self.issuer = issuer
        self.audiences = audiences
        self.subject = subject
        self.expiresAt = expiresAt
        self.notBefore = notBefore
    }
}

/// What a token must satisfy besides its signature. One policy per token kind: Apple identity
/// tokens (issuer `https://appleid.apple.com`, audience = our client id) and Hearth's own tokens.
///
/// Only RS256 is accepted, by name, before any key is touched: this shuts out `alg: none` and the
/// classic confusion attack where an HS256 token is "signed" with the RSA public key as secret.
public struct TokenPolicy: Sendable {
    public static let algorithm = "RS256"

    public var issuer: String
    public var audiences: Set<String>
    /// Clock skew tolerated on `exp` and `nbf`.
    public var leeway: TimeInterval

    public init(issuer: String, audiences: Set<String>, leeway: TimeInterval = 30) {
        self.issuer = issuer
        self.audiences = audiences
        self.leeway = leeway
    }

    public func check(_ header: TokenHeader) throws(TokenRejection) {
        guard let algorithm = header.algorithm else { throw .unsupportedAlgorithm("none") }
        guard algorithm == Self.algorithm else { throw .unsupportedAlgorithm(algorithm) }
        guard let keyId = header.keyId, !keyId.isEmpty else { throw .missingKeyId }
    }

    public func check(_ claims: TokenClaims, now: Date) throws(TokenRejection) {
        guard claims.issuer == issuer else { throw .wrongIssuer }
        // Every audience the token names must be ours, and there must be at least one.
        guard !claims.audiences.isEmpty, claims.audiences.allSatisfy(audiences.contains) else { throw .wrongAudience }
        guard let expiresAt = claims.expiresAt else { throw .missingExpiry }
        guard now.timeIntervalSince(expiresAt) < leeway else { throw .expired }
        if let notBefore = claims.notBefore, notBefore.timeIntervalSince(now) > leeway { throw .notYetValid }
        guard let subject = claims.subject, !subject.isEmpty else { throw .missingSubject }
    }
}
