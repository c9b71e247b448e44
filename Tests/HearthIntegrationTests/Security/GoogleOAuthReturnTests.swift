import Foundation
import Testing

extension BackboneSuite {
    /// With a return URL configured, the OAuth callback sends the browser back to the app with
    /// the outcome, success or refusal, and clears the binding cookie either way.
    @Suite struct GoogleOAuthReturn {
        @Test func theCallbackRedirectsToTheAppWithTheOutcome() async throws {
            let fake = FakeGoogle()
            try await fake.serve { baseURL in
                var environment = CalendarStack.googleEnvironment(baseURL)
                environment["HEARTH_GOOGLE_RETURN_URL"] = "https://app.hearth.example/settings?tab=calendar"
                try await ServiceProcess.with("gateway", environment: environment) { gateway in
                    let (user, _) = try await GatewayUser.withHousehold(gateway, name: "The Returners")
                    let start = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/integrations/google/connect"), headers: user.headers)
                    let authorize = try #require((start.json["authorize_url"] as? String).flatMap(URLComponents.init(string:)))
                    let state = try #require(authorize.queryItems?.first { $0.name == "state" }?.value)
                    let binding = try #require(start.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
                    var callback = URLComponents(url: gateway.baseURL.appendingPathComponent("v1/integrations/google/callback"), resolvingAgainstBaseURL: false)!
                    callback.queryItems = [.init(name: "code", value: "good-code-return"), .init(name: "state", value: state)]

                    // From another browser: back to the app with the reason, nothing linked.
                    let lured = try await HTTPTestClient.send("GET", callback.url!)
                    #expect(lured.status == 303)
                    #expect(lured.header("Location") == "https://app.hearth.example/settings?tab=calendar&google=error&reason=invalid_request", "\(lured.headers)")
                    // From the browser that asked: linked, and back to the app saying so.
                    let linked = try await HTTPTestClient.send("GET", callback.url!, headers: ["Cookie": binding])
                    #expect(linked.status == 303)
                    #expect(linked.header("Location") == "https://app.hearth.example/settings?tab=calendar&google=connected")
                    #expect(linked.header("Set-Cookie")?.contains("Max-Age=0") == true)
                    let userId = try #require(UUID(uuidString: user.userId))
                    #expect(try await TestEnvironment.withPostgres { client in
                        let rows = try await client.query("SELECT count(*)::int8 FROM google_credentials WHERE user_id = \(userId)", logger: TestEnvironment.logger)
                        for try await count in rows.decode(Int64.self) { return count == 1 }
                        return false
                    })
                }
            }
        }
    }
}
