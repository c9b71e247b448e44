import CryptoExtras
import Foundation
import HearthDomain
import JWTKit

/// RSA keys made for one test run, to play Apple (a JWKS the gateway fetches) or to stand in for
/// Hearth's own key (`HEARTH_JWT_PRIVATE_KEY_FILE`), and to sign whatever tokens a test needs.
struct TestSigningKey: Sendable {
    let keyId: String
    let privateKey: JWTKit.Insecure.RSA.PrivateKey

    init(keyId: String) throws {
        self.keyId = keyId
        self.privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// The public half as a JWK entry of a JWKS document.
    var jwk: [String: String] {
        let (modulus, exponent) = try! privateKey.publicKey.getKeyPrimitives()
        return ["kty": "RSA", "kid": keyId, "use": "sig", "alg": "RS256", "n": Base64URL.encode(modulus), "e": Base64URL.encode(exponent)]
    }

    var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// Writes the private key as PEM to a temporary file and answers its path.
    func writePrivateKey() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-test-key-\(UUID()).pem").path
        try privateKey.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// An RS256 token with these claims, signed by this key and naming `kid` (its own by default).
    func sign(_ claims: TestClaims, kid: String? = nil) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid ?? keyId))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid ?? keyId))
    }
}

/// Registered claims as a test wants them, including wrong ones.
struct TestClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?

    init(issuer: String, audience: String, subject: String, expiresIn: TimeInterval = 600) {
        iss = IssuerClaim(value: issuer)
        aud = AudienceClaim(value: audience)
        sub = SubjectClaim(value: subject)
        exp = ExpirationClaim(value: Date().addingTimeInterval(expiresIn))
        iat = IssuedAtClaim(value: Date().addingTimeInterval(min(0, expiresIn) - 60))
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Tokens no honest signer makes.
enum ForgedTokens {
    /// `alg: none` with an empty signature.
    static func unsigned(_ claims: TestClaims, kid: String) throws -> String {
        let header = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT","kid":"\#(kid)"}"#.utf8))
        return "\(header).\(Base64URL.encode(try JSONEncoder().encode(claims)))."
    }

    /// The key-confusion attack: HS256 with the RSA public key (PEM) as the shared secret.
    static func hmacWithPublicKey(_ claims: TestClaims, publicKeyPEM: String, kid: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: publicKeyPEM), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }
}
