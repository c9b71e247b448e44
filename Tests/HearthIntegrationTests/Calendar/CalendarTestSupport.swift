import Foundation
import HearthDomain
import PostgresNIO
import Testing

/// Starts calendar-sync and a gateway pointed at a fake Google, and links a fresh user.
enum CalendarStack {
    /// 32 bytes, base64: both executables must share it (the gateway seals, calendar-sync opens).
    static let secretsKey = Data((0..<32).map { UInt8($0 * 7 % 251) }).base64EncodedString()

    static func googleEnvironment(_ fake: String) -> [String: String] {
        [
            "HEARTH_GOOGLE_CLIENT_ID": "hearth-test-client", "HEARTH_GOOGLE_CLIENT_SECRET": "hearth-test-secret",
            "HEARTH_GOOGLE_AUTHORIZE_URL": "\(fake)/auth", "HEARTH_GOOGLE_TOKEN_URL": "\(fake)/token", "HEARTH_GOOGLE_REVOKE_URL": "\(fake)/revoke",
            "HEARTH_GOOGLE_CALENDAR_URL": "\(fake)/calendar/v3", "HEARTH_SECRETS_KEY": secretsKey,
            "HEARTH_GOOGLE_BACKOFF_MS": "20", "HEARTH_GOOGLE_BACKOFF_CAP_MS": "200",
        ]
    }

    /// `beforeLinking` runs once the user has a household but no Google link yet.
    static func with(
        beforeLinking: (@Sendable (_ gateway: ServiceProcess, _ user: GatewayUser) async throws -> Void)? = nil,
        _ body: @Sendable @escaping (_ fake: FakeGoogle, _ gateway: ServiceProcess, _ user: GatewayUser) async throws -> Void
    ) async throws {
        let fake = FakeGoogle()
        try await fake.serve { baseURL in
            let environment = googleEnvironment(baseURL)
            try await ServiceProcess.with("calendar-sync", environment: environment) { _ in
                try await ServiceProcess.with("gateway", environment: environment) { gateway in
                    let (user, _) = try await GatewayUser.withHousehold(gateway, name: "The Calendar Testers")
                    try await beforeLinking?(gateway, user)
                    try await connect(gateway, user: user)
                    try await body(fake, gateway, user)
                }
            }
        }
    }

    /// The browser's part of the OAuth dance: follow /connect, come back with a code and the state.
    static func connect(_ gateway: ServiceProcess, user: GatewayUser) async throws {
        let start = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/integrations/google/connect"), headers: user.headers)
        #expect(start.status == 200)
        let authorize = try #require((start.json["authorize_url"] as? String).flatMap(URLComponents.init(string:)))
        let query = Dictionary(uniqueKeysWithValues: (authorize.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(query["access_type"] == "offline")
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == "hearth-test-client")
        let state = try #require(query["state"])
        // The browser that asked keeps a binding cookie, for the callback only.
        let setCookie = try #require(start.header("Set-Cookie"))
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Path=/v1/integrations/google/callback"), "\(setCookie)")
        let binding = try #require(setCookie.split(separator: ";").first.map(String.init))
        let browser = ["Cookie": binding]

        // A forged state is refused; so is the real one from a browser without the cookie (a
        // victim lured to someone else's link) or with another; the real one links, once.
        var forged = URLComponents(url: gateway.baseURL.appendingPathComponent("v1/integrations/google/callback"), resolvingAgainstBaseURL: false)!
        forged.queryItems = [.init(name: "code", value: "good-code"), .init(name: "state", value: state.dropLast(2) + "xx")]
        let refused = try await HTTPTestClient.send("GET", forged.url!, headers: browser)
        #expect(refused.status == 400 && refused.errorField == "state")

        var callback = forged
        callback.queryItems = [.init(name: "code", value: "good-code-\(UUID().uuidString.prefix(6))"), .init(name: "state", value: state)]
        for cookie in [nil, "hearth_google_oauth=someone-elses"] {
            let elsewhere = try await HTTPTestClient.send("GET", callback.url!, headers: cookie.map { ["Cookie": $0] } ?? [:])
            #expect(elsewhere.status == 400 && elsewhere.errorField == "state", "\(String(decoding: elsewhere.body, as: UTF8.self))")
        }
        let linked = try await HTTPTestClient.send("GET", callback.url!, headers: ["Cookie": "theme=dark; " + binding])
        #expect(linked.status == 200, "\(String(decoding: linked.body, as: UTF8.self))")
        #expect(linked.json["connected"] as? Bool == true)
        #expect(linked.header("Set-Cookie")?.contains("Max-Age=0") == true, "the binding is cleared")
        let replayed = try await HTTPTestClient.send("GET", callback.url!, headers: browser)
        #expect(replayed.status == 400 && replayed.errorField == "state", "a state links once")

        // The refresh token is stored sealed, not in the clear.
        let userId = try #require(UUID(uuidString: user.userId))
        let sealed = try await TestEnvironment.withPostgres { client -> Data? in
            let rows = try await client.query("SELECT sealed_refresh_token FROM google_credentials WHERE user_id = \(userId)", logger: TestEnvironment.logger)
            for try await buffer in rows.decode(ByteBuffer.self) { return Data(buffer: buffer) }
            return nil
        }
        let stored = try #require(sealed)
        #expect(!String(decoding: stored, as: UTF8.self).contains("refresh-"))

        let known = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
            try await linkStatus(of: userId) == "connected"
        }
        #expect(known, "calendar-sync saw the link")
    }

    static func linkStatus(of user: UUID) async throws -> String? {
        try await TestEnvironment.withPostgres { client in
            let rows = try await client.query("SELECT status FROM google_links WHERE user_id = \(user)", logger: TestEnvironment.logger)
            for try await status in rows.decode(String.self) { return status }
            return nil
        }
    }

    /// Adds a household member and waits until the household read shows it; answers its id.
    static func addMember(_ gateway: ServiceProcess, user: GatewayUser, household: String, name: String) async throws -> String {
        let added = try await HTTPTestClient.postJSON(
            gateway.baseURL.appendingPathComponent("v1/households/\(household)/members"), ["name": name, "role": "parent"], headers: user.headers)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let id = try #require(added.json["member_id"] as? String)
        let position = try #require(added.json["position"] as? String)
        let read = try await HTTPTestClient.send(
            "GET", gateway.baseURL.appendingPathComponent("v1/households/\(household)"), headers: user.headers(["X-Consistency-Token": position]))
        #expect(read.status == 200)
        return id.lowercased()
    }

    static func create(_ gateway: ServiceProcess, user: GatewayUser, _ body: [String: Any], query: String = "") async throws -> HTTPTestClient.Reply {
        let url = URL(string: gateway.baseURL.appendingPathComponent("v1/calendar/events").absoluteString + query)!
        return try await HTTPTestClient.postJSON(url, body, headers: user.headers)
    }

    static func list(_ gateway: ServiceProcess, user: GatewayUser, from: String, to: String) async throws -> [[String: Any]] {
        let url = gateway.baseURL.appendingPathComponent("v1/calendar/events").appending(queryItems: [.init(name: "from", value: from), .init(name: "to", value: to)])
        let reply = try await HTTPTestClient.send("GET", url, headers: user.headers)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        return reply.json["events"] as? [[String: Any]] ?? []
    }

    /// Compares instants written differently (`…Z`, `….000Z`, offsets).
    static func instant(_ text: String?) -> Date? {
        text.flatMap { CalendarTimeInput.parseDateTime($0, in: TimeZone(identifier: "UTC")!) }
    }
}
