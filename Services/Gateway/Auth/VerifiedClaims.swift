import Foundation
import HearthDomain
import JWTKit

/// The registered claims of any token the gateway verifies. `verify(using:)` accepts anything:
/// the rules live in `TokenPolicy` (HearthDomain), where they are unit-tested, and run after the
/// signature check.
struct VerifiedClaims: JWTPayload {
    var iss: IssuerClaim?
    var aud: AudienceClaim?
    var sub: SubjectClaim?
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?
    var iat: IssuedAtClaim?
    /// When the user last signed in (OpenID Connect's `auth_time`): a refreshed token keeps its
    /// sign-in's, so a fresh sign-in cannot be had by refreshing.
    var authTime: IssuedAtClaim?
    /// Sign in with Apple: the SHA-256 (hex) of the nonce the app generated for this sign-in.
    var nonce: String?
    /// Hearth's access tokens: the sign-in session they belong to (ending it ends them) and the
    /// token's own id.
    var sid: String?
    var jti: IDClaim?

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, exp, nbf, iat, nonce, sid, jti
        case authTime = "auth_time"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    var claims: TokenClaims {
        TokenClaims(issuer: iss?.value, audiences: aud?.value ?? [], subject: sub?.value, expiresAt: exp?.value, notBefore: nbf?.value)
    }
}
