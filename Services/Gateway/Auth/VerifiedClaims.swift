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

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    var claims: TokenClaims {
        TokenClaims(issuer: iss?.value, audiences: aud?.value ?? [], subject: sub?.value, expiresAt: exp?.value, notBefore: nbf?.value)
    }
}
