import Crypto
import Foundation
import HearthDomain
import JWTKit
import HearthEvents

/// Sign in with Apple is not configured (no `HEARTH_APPLE_CLIENT_ID`).
struct AppleSignInNotConfigured: Error {}

/// Verifies Sign in with Apple identity tokens: RS256 with the key Apple names by `kid`, issued by
/// `https://appleid.apple.com` for our client id, not expired. Answers Apple's `sub`.
struct AppleIdentityVerifier: Sendable {
    let keySet: AppleKeySet
    /// Nil when no client id is configured: then no token is accepted, since without an audience
    /// check a token Apple issued to any other app would pass.
    let policy: TokenPolicy?

    init(keySet: AppleKeySet, clientId: String?) {
        self.keySet = keySet
        self.policy = clientId.map { TokenPolicy(issuer: GatewaySettings.appleIssuer, audiences: [$0]) }
    }

    /// How old an identity token may be: it is used once, right after the app got it.
    static let maxAge: TimeInterval = 600

    /// `nonce`: the raw nonce the app sent; when either it or the token has one, the token's
    /// must be its SHA-256 (hex).
    func subject(of idToken: String, nonce: String? = nil, now: Date = Date()) async throws -> String {
        guard let policy else { throw AppleSignInNotConfigured() }
        let header = try TokenHeader.parse(idToken)
        try policy.check(header)
        guard let keyId = header.keyId, let keys = try await keySet.keys(for: keyId) else { throw TokenRejection.unknownKeyId }
        let verified: VerifiedClaims
        do {
            verified = try await keys.verify(idToken, as: VerifiedClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw TokenRejection.badSignature
        } catch {
            throw TokenRejection.malformed
        }
        try policy.check(verified.claims, now: now)
        guard let issued = verified.iat?.value, now.timeIntervalSince(issued) <= Self.maxAge, issued.timeIntervalSince(now) <= 60 else {
            throw TokenRejection.tooOld
        }
        if nonce != nil || verified.nonce != nil {
            guard let nonce, let expected = verified.nonce,
                  Hex.encode(SHA256.hash(data: Data(nonce.utf8))) == expected.lowercased()
            else { throw TokenRejection.nonceMismatch }
        }
        guard let subject = verified.claims.subject else { throw TokenRejection.missingSubject }
        return subject
    }
}
