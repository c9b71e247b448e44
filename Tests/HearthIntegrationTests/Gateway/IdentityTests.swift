import Foundation
import Testing

extension BackboneSuite {
    /// Sign in with Apple against a local JWKS, and the bearer-token rules of Hearth's own tokens.
    @Suite struct Identity {
        static let appleIssuer = "https://appleid.apple.com"
        static let clientId = "com.hearth.tests"

        @Test func appleIdentityTokensAreVerifiedAgainstTheJWKS() async throws {
            let apple = try TestSigningKey(keyId: "apple-test-1")
            let impostor = try TestSigningKey(keyId: "apple-test-1")
            try await LocalJWKSServer.with(keys: [apple]) { url, fetches in
                let environment = ["HEARTH_APPLE_JWKS_URL": url, "HEARTH_APPLE_CLIENT_ID": Self.clientId]
                try await ServiceProcess.with("gateway", environment: environment) { gateway in
                    let signIn = gateway.baseURL.appendingPathComponent("v1/auth/apple")
                    let subject = "001234.\(UUID().uuidString.lowercased()).0042"
                    func claims(issuer: String = Self.appleIssuer, audience: String = Self.clientId, expiresIn: TimeInterval = 600) -> TestClaims {
                        TestClaims(issuer: issuer, audience: audience, subject: subject, expiresIn: expiresIn)
                    }

                    // The first sign-in names the person; without a name it is refused, naming the field.
                    let nameless = try await HTTPTestClient.postJSON(signIn, ["id_token": try await apple.sign(claims())])
                    #expect(nameless.status == 400)
                    #expect(String(decoding: nameless.body, as: UTF8.self).contains("display_name"))
                    let first = try await HTTPTestClient.postJSON(signIn, ["id_token": try await apple.sign(claims()), "display_name": "Robin"])
                    #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
                    let userId = try #require(first.json["user_id"] as? String)
                    let jwt = try #require(first.json["jwt"] as? String)
                    // The same Apple sub is the same user, at once: the id is derived, not looked up.
                    let again = try await HTTPTestClient.postJSON(signIn, ["id_token": try await apple.sign(claims())])
                    #expect(again.status == 200)
                    #expect(again.json["user_id"] as? String == userId)

                    let me = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: ["Authorization": "Bearer \(jwt)"])
                    #expect(me.status == 200)
                    #expect(me.json["user_id"] as? String == userId)
                    #expect(me.json["provider"] as? String == "apple")
                    #expect(me.json["display_name"] as? String == "Robin")

                    let refused: [(String, String)] = [
                        ("bad signature", try await impostor.sign(claims())),
                        ("unknown kid", try await apple.sign(claims(), kid: "rotated-away")),
                        ("wrong issuer", try await apple.sign(claims(issuer: "https://evil.example"))),
                        ("wrong audience", try await apple.sign(claims(audience: "com.someone.else"))),
                        ("expired", try await apple.sign(claims(expiresIn: -3600))),
                        ("alg none", try ForgedTokens.unsigned(claims(), kid: apple.keyId)),
                        ("HS256 with the public key", try await ForgedTokens.hmacWithPublicKey(claims(), publicKeyPEM: apple.publicKeyPEM, kid: apple.keyId)),
                        ("not a JWT", "not-a-jwt"),
                    ]
                    for (label, token) in refused {
                        let reply = try await HTTPTestClient.postJSON(signIn, ["id_token": token])
                        #expect(reply.status == 401, "\(label): \(String(decoding: reply.body, as: UTF8.self))")
                        #expect(reply.errorCode == "unauthorized", "\(label)")
                        #expect((reply.json["error"] as? [String: Any])?["request_id"] as? String == reply.header("X-Request-Id"), "\(label)")
                    }
                    // One fetch on first use, one refresh for the first unknown kid, no more: refreshes
                    // for unknown kids are rate-limited.
                    let unknownAgain = try await HTTPTestClient.postJSON(signIn, ["id_token": try await apple.sign(claims(), kid: "another-made-up-kid")])
                    #expect(unknownAgain.status == 401)
                    #expect(fetches.value == 2, "JWKS fetched \(fetches.value) times")

                    let missing = try await HTTPTestClient.postJSON(signIn, ["token": "x"])
                    #expect(missing.status == 400)
                    #expect(missing.errorField == "id_token")
                }
            }
        }

        @Test func hearthTokensAreRS256WithOurKeyIssuerAudienceAndExpiry() async throws {
            let hearthKey = try TestSigningKey(keyId: "hearth-test-key")
            let otherKey = try TestSigningKey(keyId: "hearth-test-key")
            let keyFile = try hearthKey.writePrivateKey()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let environment = [
                "HEARTH_JWT_PRIVATE_KEY_FILE": keyFile, "HEARTH_JWT_KEY_ID": hearthKey.keyId,
                "HEARTH_JWT_ISSUER": "hearth-tests", "HEARTH_JWT_AUDIENCE": "hearth-tests-app",
            ]
            try await ServiceProcess.with("gateway", environment: environment) { gateway in
                let meURL = gateway.baseURL.appendingPathComponent("v1/me")
                func me(_ headers: [String: String]) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send("GET", meURL, headers: headers)
                }
                let user = UUID().uuidString.lowercased()
                func claims(issuer: String = "hearth-tests", audience: String = "hearth-tests-app", subject: String? = nil, expiresIn: TimeInterval = 600) -> TestClaims {
                    TestClaims(issuer: issuer, audience: audience, subject: subject ?? user, expiresIn: expiresIn)
                }

                let minted = try await hearthKey.sign(claims())
                let accepted = try await me(["Authorization": "Bearer \(minted)"])
                #expect(accepted.status == 200)
                #expect(accepted.json["user_id"] as? String == user)

                let signedIn = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/auth/dev"), ["name": "Token Tester \(UUID().uuidString.prefix(6))"])
                let signedInUser = try #require(signedIn.json["user_id"] as? String)
                #expect(try await me(["Authorization": "Bearer \(try #require(signedIn.json["jwt"] as? String))"]).json["user_id"] as? String == signedInUser)
                let refreshed = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/auth/refresh"), ["refresh_token": try #require(signedIn.json["refresh_token"] as? String)])
                #expect(refreshed.status == 200)
                #expect(refreshed.json["user_id"] as? String == signedInUser)
                let fresh = try #require(refreshed.json["jwt"] as? String)
                #expect(try await me(["Authorization": "Bearer \(fresh)"]).status == 200)

                let refused: [(String, [String: String])] = [
                    ("no header", [:]),
                    ("not bearer", ["Authorization": "Basic dXNlcjpwYXNz"]),
                    ("empty bearer", ["Authorization": "Bearer "]),
                    ("garbage", ["Authorization": "Bearer abc.def.ghi"]),
                    ("HS256 with the public key", ["Authorization": "Bearer \(try await ForgedTokens.hmacWithPublicKey(claims(), publicKeyPEM: hearthKey.publicKeyPEM, kid: hearthKey.keyId))"]),
                    ("alg none", ["Authorization": "Bearer \(try ForgedTokens.unsigned(claims(), kid: hearthKey.keyId))"]),
                    ("expired", ["Authorization": "Bearer \(try await hearthKey.sign(claims(expiresIn: -120)))"]),
                    ("wrong audience", ["Authorization": "Bearer \(try await hearthKey.sign(claims(audience: "someone-else")))"]),
                    ("wrong issuer", ["Authorization": "Bearer \(try await hearthKey.sign(claims(issuer: "someone-else")))"]),
                    ("other key, same kid", ["Authorization": "Bearer \(try await otherKey.sign(claims()))"]),
                    ("unknown kid", ["Authorization": "Bearer \(try await hearthKey.sign(claims(), kid: "old-key"))"]),
                    ("subject not a user id", ["Authorization": "Bearer \(try await hearthKey.sign(claims(subject: "root")))"]),
                ]
                for (label, headers) in refused {
                    let reply = try await me(headers)
                    #expect(reply.status == 401, "\(label): \(String(decoding: reply.body, as: UTF8.self))")
                    #expect(reply.errorCode == "unauthorized", "\(label)")
                    #expect(reply.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(label)")
                    #expect((reply.json["error"] as? [String: Any])?["request_id"] as? String == reply.header("X-Request-Id"), "\(label)")
                }
            }
        }

        @Test func devAndDeviceSignInGiveStableUsers() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let name = "Stable \(UUID().uuidString.prefix(8))"
                let first = try await GatewayUser.signIn(gateway, name: name)
                let second = try await GatewayUser.signIn(gateway, name: " \(name.uppercased()) ")
                #expect(first.userId == second.userId)

                let deviceURL = gateway.baseURL.appendingPathComponent("v1/auth/device")
                let deviceId = UUID().uuidString
                let device = try await HTTPTestClient.postJSON(deviceURL, ["device_id": deviceId])
                #expect(device.status == 200)
                let deviceUser = try #require(device.json["user_id"] as? String)
                #expect(try await HTTPTestClient.postJSON(deviceURL, ["device_id": deviceId]).json["user_id"] as? String == deviceUser)
                #expect(deviceUser != first.userId)
                let me = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: ["Authorization": "Bearer \(try #require(device.json["jwt"] as? String))"])
                #expect(me.json["provider"] as? String == "device")
                #expect(me.json["display_name"] == nil, "anonymous devices carry no personal data")

                let short = try await HTTPTestClient.postJSON(deviceURL, ["device_id": "abc"])
                #expect(short.status == 400)
                #expect(short.errorField == "device_id")
            }
        }

        @Test func devSignInDoesNotExistInProduction() async throws {
            let key = try TestSigningKey(keyId: "prod-key")
            let keyFile = try key.writePrivateKey()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            try await ServiceProcess.with("gateway", environment: ["HEARTH_ENV": "production", "HEARTH_JWT_PRIVATE_KEY_FILE": keyFile]) { gateway in
                let reply = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/auth/dev"), ["name": "mallory"])
                #expect(reply.status == 404)
                #expect(reply.errorCode == "not_found")
            }
        }

        @Test func productionWithoutASigningKeyRefusesToStart() async throws {
            let gateway = try ServiceProcess("gateway", environment: ["HEARTH_ENV": "production"])
            for _ in 0..<200 where gateway.isRunning { try await Task.sleep(for: .milliseconds(50)) }
            #expect(!gateway.isRunning)
            #expect(gateway.terminationStatus == 78)
            #expect(gateway.logTail().contains("HEARTH_JWT_PRIVATE_KEY_FILE"))
        }
    }
}
