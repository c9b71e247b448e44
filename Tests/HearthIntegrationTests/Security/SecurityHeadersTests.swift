import Foundation
import Testing

extension BackboneSuite {
    /// Security headers on answers and errors; CORS for the configured origin and no other.
    @Suite struct SecurityHeaders {
        @Test func answersCarrySecurityHeadersAndOnlyTheConfiguredOriginGetsCORS() async throws {
            try await ServiceProcess.with("gateway", environment: ["HEARTH_CORS_ORIGINS": "https://app.example.com"]) { gateway in
                let me = gateway.baseURL.appendingPathComponent("v1/me")
                let user = try await GatewayUser.signIn(gateway)
                for reply in [
                    try await HTTPTestClient.send("GET", me, headers: user.headers),
                    try await HTTPTestClient.send("GET", me),  // 401
                ] {
                    #expect(reply.headers["X-Content-Type-Options"] == "nosniff", "\(reply.status)")
                    #expect(reply.headers["Referrer-Policy"] == "no-referrer")
                    #expect(reply.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
                    #expect(reply.headers["Access-Control-Allow-Origin"] == nil, "no Origin, no CORS")
                }
                let preflight = ["Origin": "https://app.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"]
                let allowed = try await HTTPTestClient.send("OPTIONS", gateway.baseURL.appendingPathComponent("v1/households/upsert"), headers: preflight)
                #expect(allowed.status == 204)
                #expect(allowed.headers["Access-Control-Allow-Origin"] == "https://app.example.com")
                #expect(allowed.headers["Access-Control-Allow-Headers"]?.contains("Authorization") == true)
                let fromApp = try await HTTPTestClient.send("GET", me, headers: user.headers(["Origin": "https://app.example.com"]))
                #expect(fromApp.headers["Access-Control-Allow-Origin"] == "https://app.example.com")

                var evil = preflight
                evil["Origin"] = "https://evil.example"
                let refused = try await HTTPTestClient.send("OPTIONS", gateway.baseURL.appendingPathComponent("v1/households/upsert"), headers: evil)
                #expect(refused.headers["Access-Control-Allow-Origin"] == nil)
                let fromEvil = try await HTTPTestClient.send("GET", me, headers: user.headers(["Origin": "https://evil.example"]))
                #expect(fromEvil.headers["Access-Control-Allow-Origin"] == nil)
            }
        }
    }
}
