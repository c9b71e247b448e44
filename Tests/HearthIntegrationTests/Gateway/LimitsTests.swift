import Foundation
import Testing

extension BackboneSuite {
    /// Rate limits per client address (kept in Postgres, so shared by every gateway instance),
    /// request ids, and the body limit.
    @Suite struct Limits {
        /// A client address no other test uses, so its counter starts at zero.
        static func freshClientAddress() -> String {
            "10.\(Int.random(in: 0...255)).\(Int.random(in: 0...255)).\(Int.random(in: 1...254))"
        }

        /// Waits for a fresh minute when the current one is nearly over, so that a burst of
        /// requests cannot straddle two windows.
        static func startEarlyInAWindow() async throws {
            let intoMinute = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
            if intoMinute > 40 { try await Task.sleep(for: .seconds(60 - intoMinute + 0.2)) }
        }

        /// From a peer that is no configured proxy, `X-Forwarded-For` is ignored: a client writing a
        /// new address into it each time is still one client.
        @Test func aForwardedForFromAnUntrustedPeerIsIgnored() async throws {
            let environment = ["HEARTH_RATE_LIMIT_PER_MIN": "30", "HEARTH_TRUSTED_PROXIES": "10.9.9.9, fd00::/8"]
            try await ServiceProcess.with("gateway", environment: environment) { gateway in
                let openAPI = gateway.baseURL.appendingPathComponent("openapi.json")
                try await Self.startEarlyInAWindow()
                var statuses: [Int] = []
                for _ in 1...31 {
                    statuses.append(try await HTTPTestClient.send("GET", openAPI, headers: ["X-Forwarded-For": Self.freshClientAddress()]).status)
                }
                #expect(statuses.prefix(30).allSatisfy { $0 == 200 } && statuses.last == 429, "\(statuses)")
            }
        }

        @Test func theThirtyFirstRequestInAMinuteIsRefused() async throws {
            let environment = [
                "HEARTH_RATE_LIMIT_PER_MIN": "30", "HEARTH_AUTH_RATE_LIMIT_PER_MIN": "10", "HEARTH_TRUSTED_PROXIES": "127.0.0.1, ::1",
            ]
            try await ServiceProcess.with("gateway", environment: environment) { gateway in
                let openAPI = gateway.baseURL.appendingPathComponent("openapi.json")
                let client = Self.freshClientAddress()
                try await Self.startEarlyInAWindow()
                for index in 1...30 {
                    let reply = try await HTTPTestClient.send("GET", openAPI, headers: ["X-Forwarded-For": "203.0.113.9, \(client)"])
                    #expect(reply.status == 200, "request \(index)")
                    #expect(reply.header("RateLimit-Limit") == "30")
                    #expect(reply.header("RateLimit-Remaining") == String(30 - index), "request \(index)")
                }
                let refused = try await HTTPTestClient.send("GET", openAPI, headers: ["X-Forwarded-For": client, "X-Request-Id": "limit-31"])
                #expect(refused.status == 429)
                #expect(refused.errorCode == "rate_limited")
                #expect(refused.header("X-Request-Id") == "limit-31")
                #expect((refused.json["error"] as? [String: Any])?["request_id"] as? String == "limit-31")
                let retryAfter = try #require(refused.header("Retry-After").flatMap(Int.init))
                #expect((1...60).contains(retryAfter))
                #expect(refused.header("RateLimit-Limit") == "30")
                #expect(refused.header("RateLimit-Remaining") == "0")
                #expect(refused.header("RateLimit-Reset") == String(retryAfter))

                // Only that client is limited; ops routes never are.
                let other = try await HTTPTestClient.send("GET", openAPI, headers: ["X-Forwarded-For": Self.freshClientAddress()])
                #expect(other.status == 200)
                let health = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("healthz"), headers: ["X-Forwarded-For": client])
                #expect(health.status == 200)
                #expect(health.header("RateLimit-Limit") == nil)
                #expect(try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("readyz"), headers: ["X-Forwarded-For": client]).status == 200)

                // Sign-in has its own, stricter limit (10 a minute) on top.
                let authClient = Self.freshClientAddress()
                for index in 1...10 {
                    let reply = try await HTTPTestClient.postJSON(
                        gateway.baseURL.appendingPathComponent("v1/auth/dev"), ["name": "limited-\(index)"], headers: ["X-Forwarded-For": authClient])
                    #expect(reply.status == 200, "sign-in \(index)")
                    #expect(reply.header("RateLimit-Limit") == "10", "sign-in \(index)")
                }
                let eleventh = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/auth/dev"), ["name": "limited-11"], headers: ["X-Forwarded-For": authClient])
                #expect(eleventh.status == 429)
                #expect(eleventh.header("Retry-After") != nil)
                let stillAllowed = try await HTTPTestClient.send("GET", openAPI, headers: ["X-Forwarded-For": authClient])
                #expect(stillAllowed.status == 200, "the general limit is not used up by sign-ins")
            }
        }

        @Test func forwardedForIsIgnoredUnlessTheProxyIsTrusted() async throws {
            try await ServiceProcess.with("gateway", environment: ["HEARTH_RATE_LIMIT_PER_MIN": "30"]) { gateway in
                try await Self.startEarlyInAWindow()
                // Every request claims another address; all count against 127.0.0.1, which other
                // tests may already have used this minute, so a 429 comes by the 31st at the latest.
                var refusedAt: Int?
                for index in 1...31 where refusedAt == nil {
                    let reply = try await HTTPTestClient.send(
                        "GET", gateway.baseURL.appendingPathComponent("openapi.json"), headers: ["X-Forwarded-For": Self.freshClientAddress()])
                    if reply.status == 429 { refusedAt = index }
                }
                #expect(refusedAt != nil)
            }
        }

        @Test func requestIdsAreEchoedAndLargeBodiesRefused() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let user = try await GatewayUser.signIn(gateway)
                let upsert = gateway.baseURL.appendingPathComponent("v1/households/upsert")

                let named = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: user.headers(["X-Request-Id": "req-me-1"]))
                #expect(named.status == 200)
                #expect(named.header("X-Request-Id") == "req-me-1")
                let generated = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: user.headers)
                #expect(generated.header("X-Request-Id")?.isEmpty == false)
                let unauthorized = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: ["X-Request-Id": "req-401"])
                #expect(unauthorized.status == 401)
                #expect(unauthorized.header("X-Request-Id") == "req-401")
                #expect((unauthorized.json["error"] as? [String: Any])?["request_id"] as? String == "req-401")

                let large = try JSONSerialization.data(withJSONObject: ["prefs": ["adults": 2], "name": String(repeating: "x", count: 1_100_000)])
                let tooLarge = try await HTTPTestClient.send("POST", upsert, body: large, headers: user.headers(["X-Request-Id": "req-413"]))
                #expect(tooLarge.status == 413)
                #expect(tooLarge.errorCode == "payload_too_large")
                #expect(tooLarge.header("X-Request-Id") == "req-413")

                let wrongType = try await HTTPTestClient.postJSON(upsert, ["prefs": ["adults": "two"], "extra": ["ignored": true]], headers: user.headers)
                #expect(wrongType.status == 400)
                #expect(wrongType.errorField == "prefs.adults")
            }
        }
    }
}
