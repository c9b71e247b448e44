import Crypto
import Foundation
import Testing

extension BackboneSuite {
    /// A Sign in with Apple token is used once, right after it was issued, for the sign-in whose
    /// nonce it carries: an old one, or one replayed without (or with another) nonce, is refused.
    @Suite struct AppleNonce {
        @Test func oldTokensAndWrongNoncesAreRefused() async throws {
            let apple = try TestSigningKey(keyId: "apple-nonce-1")
            try await LocalJWKSServer.with(keys: [apple]) { url, _ in
                let environment = ["HEARTH_APPLE_JWKS_URL": url, "HEARTH_APPLE_CLIENT_ID": Identity.clientId]
                try await ServiceProcess.with("gateway", environment: environment) { gateway in
                    let signIn = gateway.baseURL.appendingPathComponent("v1/auth/apple")
                    let subject = "001234.\(UUID().uuidString.lowercased()).0042"
                    let nonce = UUID().uuidString
                    let hashed = SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
                    var claims = TestClaims(issuer: Identity.appleIssuer, audience: Identity.clientId, subject: subject)
                    claims.nonce = hashed
                    let token = try await apple.sign(claims)

                    #expect(try await HTTPTestClient.postJSON(signIn, ["id_token": token, "nonce": nonce, "display_name": "Robin"]).status == 200)
                    let replayed = try await HTTPTestClient.postJSON(signIn, ["id_token": token])
                    #expect(replayed.status == 401, "a token with a nonce needs it")
                    #expect(try await HTTPTestClient.postJSON(signIn, ["id_token": token, "nonce": "another"]).status == 401)

                    var old = TestClaims(issuer: Identity.appleIssuer, audience: Identity.clientId, subject: subject, expiresIn: 3600)
                    old.iat = .init(value: Date().addingTimeInterval(-11 * 60))
                    let stale = try await HTTPTestClient.postJSON(signIn, ["id_token": try await apple.sign(old)])
                    #expect(stale.status == 401)
                    #expect(String(decoding: stale.body, as: UTF8.self).contains("10 minutes"))
                }
            }
        }
    }
}
