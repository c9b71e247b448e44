import Foundation
import HearthDomain
import JWTKit

/// Who a verified token speaks for, and when it was issued (a sign-in's time).
struct VerifiedToken: Sendable, Equatable {
    let userId: UUID
    let issuedAt: Date?
    /// The sign-in the token descends from (through refreshes): `auth_time`, else `iat`.
    let signedInAt: Date?
    /// The session (`AuthSessions`) the token belongs to; nil for a token minted without one.
    let sessionId: UUID?
    let expiresAt: Date?
}

/// Issues and verifies Hearth's own access tokens: RS256, `sub` = user id, `sid` = the sign-in
/// session, short-lived (`HEARTH_ACCESS_TOKEN_SECONDS`, 15 minutes): a refresh token renews them.
struct HearthTokens: Sendable {
    struct Issued: Sendable {
        let jwt: String
        let expiresAt: Date
    }

    private let keys: JWTKeyCollection
    private let keyId: String
    private let policy: TokenPolicy
    private let issuer: String
    private let audience: String
    private let lifetime: TimeInterval
    private let verifiedTokens = VerifiedTokenCache()

    init(signingKey: SigningKey, settings: GatewaySettings) async {
        let keys = JWTKeyCollection()
        await keys.add(rsa: signingKey.privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: signingKey.keyId))
        self.keys = keys
        self.keyId = signingKey.keyId
        self.issuer = settings.tokenIssuer
        self.audience = settings.tokenAudience
        self.lifetime = settings.tokenLifetime
        self.policy = TokenPolicy(issuer: settings.tokenIssuer, audiences: [settings.tokenAudience])
    }

    /// An access token of `session`, which keeps the session's sign-in time as `auth_time`.
    func issue(for session: AuthSession, now: Date = Date()) async throws -> Issued {
        let expiresAt = now.addingTimeInterval(lifetime)
        let claims = VerifiedClaims(
            iss: IssuerClaim(value: issuer), aud: AudienceClaim(value: audience), sub: SubjectClaim(value: session.userId.uuidString.lowercased()),
            exp: ExpirationClaim(value: expiresAt), nbf: nil, iat: IssuedAtClaim(value: now), authTime: IssuedAtClaim(value: session.signedInAt),
            sid: session.sessionId.uuidString.lowercased(), jti: IDClaim(value: UUID().uuidString.lowercased()))
        let jwt = try await keys.sign(claims, kid: JWKIdentifier(string: keyId))
        return Issued(jwt: jwt, expiresAt: expiresAt)
    }

    /// The user a token speaks for. Header rules first (RS256 and our `kid`, before any key is
    /// used), then the signature, then the claims.
    func verify(_ token: String, now: Date = Date()) async throws(TokenRejection) -> VerifiedToken {
        if let known = verifiedTokens.user(for: token, now: now) { return known }
        let header = try TokenHeader.parse(token)
        try policy.check(header)
        guard header.keyId == keyId else { throw .unknownKeyId }
        let verified: VerifiedClaims
        do {
            verified = try await keys.verify(token, as: VerifiedClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed
        }
        try policy.check(verified.claims, now: now)
        guard let subject = verified.claims.subject, let userId = UUID(uuidString: subject) else { throw .missingSubject }
        // A `sid` that is not a session id cannot name one of ours: the token is refused, not let in sessionless.
        var sessionId: UUID?
        if let sid = verified.sid {
            guard let id = UUID(uuidString: sid) else { throw .malformed }
            sessionId = id
        }
        let result = VerifiedToken(
            userId: userId, issuedAt: verified.iat?.value, signedInAt: verified.authTime?.value ?? verified.iat?.value, sessionId: sessionId,
            expiresAt: verified.claims.expiresAt)
        // Only tokens with an expiry are remembered (the policy requires one anyway).
        if let expiresAt = verified.claims.expiresAt { verifiedTokens.remember(token, verified: result, expiresAt: expiresAt) }
        return result
    }
}
