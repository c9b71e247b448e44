/// Why a bearer or identity token was refused. Every case becomes a 401; the description is what
/// the client is told, specific enough to debug a client and vague enough to leak no key material.
public enum TokenRejection: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed
    case unsupportedAlgorithm(String)
    case missingKeyId
    case unknownKeyId
    case badSignature
    case wrongIssuer
    case wrongAudience
    case missingExpiry
    case expired
    case notYetValid
    case missingSubject
    /// Issued too long ago for a token used once, at sign-in (Apple's identity tokens).
    case tooOld
    /// The nonce the request gave is not the one the token was issued for (or one is missing).
    case nonceMismatch

    public var description: String {
        switch self {
        case .malformed: "the token is not a well-formed JWT"
        case .unsupportedAlgorithm(let algorithm): "tokens must be signed with RS256, not \(algorithm)"
        case .missingKeyId: "the token header has no kid"
        case .unknownKeyId: "the token was signed with an unknown key"
        case .badSignature: "the token signature does not verify"
        case .wrongIssuer: "the token was issued by someone else"
        case .wrongAudience: "the token is meant for another audience"
        case .missingExpiry: "the token has no expiry"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet"
        case .missingSubject: "the token names no subject"
        case .tooOld: "the token was issued more than 10 minutes ago: sign in again"
        case .nonceMismatch: "the token was not issued for this sign-in's nonce"
        }
    }
}
