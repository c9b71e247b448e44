import Crypto
import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The admin console in a browser: sign-in by a one-time link, the session cookie and its
    /// flags, CSRF, expiry and refusals; every page opened by headless Chromium against a stack with
    /// traffic, its rendered DOM read for the figures the JSON twins give; a redrive from the
    /// *Pipeline* page.
    @Suite struct AdminConsole {
        static func userId(_ name: String) -> String {
            UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: name)).uuidString.lowercased()
        }

        /// A one-time link from `hearthctl admin link`.
        static func link(_ gateway: ServiceProcess, admin name: String, next: String? = nil) async throws -> URL {
            let result = try await CommandLineTool.run(
                ["admin", "link", name, "--gateway-url", gateway.baseURL.absoluteString] + (next.map { ["--next", $0] } ?? []))
            #expect(result.status == 0, "\(result.errors)")
            return try #require(URL(string: result.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.output)")
        }

        /// Where a sign-in's page moves the browser on to (its `<meta http-equiv="refresh">`).
        static func movesOnTo(_ reply: HTTPTestClient.Reply) -> String? {
            let html = String(decoding: reply.body, as: UTF8.self)
            guard let range = html.range(of: #"<meta http-equiv="refresh" content="0;url="#) else { return nil }
            return String(html[range.upperBound...].prefix { $0 != "\"" })
        }

        /// Signs in with a fresh link: the session cookie's `name=value`.
        static func signIn(_ gateway: ServiceProcess, admin name: String) async throws -> String {
            let reply = try await HTTPTestClient.send("GET", try await link(gateway, admin: name))
            #expect(reply.status == 200 && movesOnTo(reply) == "/admin/usage", "\(String(decoding: reply.body, as: UTF8.self))")
            let setCookie = try #require(reply.header("Set-Cookie"))
            return String(setCookie.prefix { $0 != ";" })
        }

        static func form(_ url: URL, _ fields: [String: String], cookie: String?) async throws -> HTTPTestClient.Reply {
            var components = URLComponents()
            components.queryItems = fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            var headers = ["Content-Type": "application/x-www-form-urlencoded"]
            if let cookie { headers["Cookie"] = cookie }
            return try await HTTPTestClient.send("POST", url, body: Data((components.percentEncodedQuery ?? "").utf8), headers: headers)
        }

        /// The CSRF token the page's forms carry.
        static func csrf(in html: String) -> String? {
            guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
            return String(html[range.upperBound...].prefix { $0 != "\"" })
        }

        @Test func signInSetsAStrictHttpOnlyCookieFormsNeedTheCSRFTokenAndSessionsEnd() async throws {
            let adminName = "Console admin \(UUID().uuidString.prefix(8))"
            let memberName = "Console member \(UUID().uuidString.prefix(8))"
            try await ServiceProcess.with(
                "gateway", environment: ["HEARTH_ADMIN_USER_IDS": Self.userId(adminName), "HEARTH_RATE_LIMIT_PER_MIN": "100000"]) { gateway in
                let base = gateway.baseURL
                let admin = try await GatewayUser.signIn(gateway, name: adminName)
                let member = try await GatewayUser.signIn(gateway, name: memberName)

                // Without a session every page sends the browser to the sign-in page.
                let anonymous = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/usage"))
                #expect(anonymous.status == 303 && anonymous.header("Location") == "/admin/sign-in")
                let signInPage = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/sign-in"))
                #expect(signInPage.status == 200 && String(decoding: signInPage.body, as: UTF8.self).contains("hearthctl admin link"))

                // The link signs in once: the cookie is HttpOnly, SameSite=Strict, scoped to /admin, and
                // not Secure in dev (plain http); the page moves on where --next said (by itself, not
                // by a redirect, which would not carry a Strict cookie after a cross-site start).
                let link = try await Self.link(gateway, admin: adminName, next: "/admin/pipeline")
                let signedIn = try await HTTPTestClient.send("GET", link)
                #expect(signedIn.status == 200 && Self.movesOnTo(signedIn) == "/admin/pipeline")
                let setCookie = try #require(signedIn.header("Set-Cookie"))
                let attributes = Set(setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(attributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/admin", "Max-Age=28800"]), "\(setCookie)")
                #expect(!attributes.contains("Secure"), "dev serves plain http")
                let cookie = String(setCookie.prefix { $0 != ";" })
                #expect(cookie.hasPrefix("hearth_admin=") && cookie.count > 40)
                let again = try await HTTPTestClient.send("GET", link)
                #expect(again.status == 403 && again.header("Set-Cookie") == nil, "a link works once")
                let forged = try await HTTPTestClient.send(
                    "GET", base.appendingPathComponent("admin/sign-in/link").appending(queryItems: [.init(name: "token", value: String(repeating: "A", count: 43))]))
                #expect(forged.status == 403)

                // Signed in: the pages answer; an open redirect is not possible through --next.
                let usage = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/usage"), headers: ["Cookie": cookie])
                #expect(usage.status == 200 && usage.header("Content-Type")?.hasPrefix("text/html") == true)
                let page = String(decoding: usage.body, as: UTF8.self)
                let csrf = try #require(Self.csrf(in: page))
                #expect(usage.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
                let elsewhere = try await HTTPTestClient.send(
                    "GET", try await Self.link(gateway, admin: adminName, next: "//evil.example/admin/usage"))
                #expect(Self.movesOnTo(elsewhere) == "/admin/usage")
                let badDays = try await HTTPTestClient.send(
                    "GET", base.appendingPathComponent("admin/usage").appending(queryItems: [.init(name: "days", value: "abc")]), headers: ["Cookie": cookie])
                #expect(badDays.status == 400 && String(decoding: badDays.body, as: UTF8.self).contains("days"))

                // A form without the CSRF token, or with another, changes nothing: 403.
                let signOut = base.appendingPathComponent("admin/sign-out")
                #expect(try await Self.form(signOut, [:], cookie: cookie).status == 403)
                #expect(try await Self.form(signOut, ["csrf": String(csrf.reversed())], cookie: cookie).status == 403)
                let stillIn = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/usage"), headers: ["Cookie": cookie])
                #expect(stillIn.status == 200, "the refused sign-out left the session alone")
                // Nor does a form without a session (a forged cross-site post carries no cookie).
                #expect(try await Self.form(signOut, ["csrf": csrf], cookie: nil).status == 401)

                // Sign-out with the token ends the session and clears the cookie.
                let out = try await Self.form(signOut, ["csrf": csrf], cookie: cookie)
                #expect(out.status == 303 && out.header("Location") == "/admin/sign-in")
                #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
                let afterOut = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/usage"), headers: ["Cookie": cookie])
                #expect(afterOut.status == 303 && afterOut.header("Location") == "/admin/sign-in")

                // A session past its expiry is no session.
                let second = try await Self.signIn(gateway, admin: adminName)
                #expect(try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/feedback"), headers: ["Cookie": second]).status == 200)

                // A quota change from the Users page: an event naming the admin, applied before the answer.
                let usersURL = base.appendingPathComponent("admin/users").appending(queryItems: [.init(name: "q", value: member.userId)])
                let usersPage = String(decoding: try await HTTPTestClient.send("GET", usersURL, headers: ["Cookie": second]).body, as: UTF8.self)
                #expect(usersPage.contains(#"id="quota-form""#) && usersPage.contains(#"id="quota-source" data-value="default""#))
                let secondCSRF = try #require(Self.csrf(in: usersPage))
                let quotaURL = base.appendingPathComponent("admin/users/\(member.userId)/quota")
                #expect(try await Self.form(quotaURL, ["monthly_quota": "0"], cookie: second).status == 403, "no CSRF token")
                let untouched = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/admin/users/\(member.userId)"), headers: admin.headers).json
                #expect(untouched["custom_quota"] is NSNull, "the refused form changed nothing")
                let setQuota = try await Self.form(quotaURL, ["csrf": secondCSRF, "monthly_quota": "0"], cookie: second)
                #expect(setQuota.status == 303 && setQuota.header("Location") == "/admin/users?q=\(member.userId)&done=quota")
                let detail = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/admin/users/\(member.userId)"), headers: admin.headers).json
                #expect(detail["custom_quota"] as? Int == 0 && (detail["quota"] as? [String: Any])?["quota"] as? Int == 0, "\(detail)")
                // The member's next run is over quota at once (nothing is published, so no orchestrator is needed).
                let run = try await HTTPTestClient.postJSON(
                    base.appendingPathComponent("v1/assist/stream"), ["goal": "Plan our week", "mode": "meals"], headers: member.headers(["Accept": "application/x-ndjson"]))
                let stream = String(decoding: run.body, as: UTF8.self)
                #expect(run.status == 200 && stream.contains("quota_exceeded") && stream.contains(#""quota":0"#), "\(stream)")
                let own = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/users/me/usage"), headers: member.headers).json
                #expect((own["quota"] as? [String: Any])?["quota"] as? Int == 0)
                #expect(try await Self.form(quotaURL, ["csrf": secondCSRF, "monthly_quota": "-3"], cookie: second).status == 400)
                // The JSON twin: values named when wrong, null for the default again, 404 for nobody.
                let adminQuota = base.appendingPathComponent("v1/admin/users/\(member.userId)/quota")
                func put(_ url: URL, _ body: [String: Any]) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send("PUT", url, body: try JSONSerialization.data(withJSONObject: body), headers: admin.headers)
                }
                for body in [["monthly_quota": -1], ["monthly_quota": "ten"], [:]] as [[String: Any]] {
                    let refused = try await put(adminQuota, body)
                    #expect(refused.status == 400 && refused.errorField == "monthly_quota", "\(body): \(refused.status)")
                }
                #expect(try await put(base.appendingPathComponent("v1/admin/users/\(UUID())/quota"), ["monthly_quota": 5]).status == 404)
                let reset = try await put(adminQuota, ["monthly_quota": NSNull()])
                #expect(reset.status == 200 && reset.json["monthly_quota"] is NSNull)
                let back = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/admin/users/\(member.userId)"), headers: admin.headers).json
                #expect(back["custom_quota"] is NSNull && (back["quota"] as? [String: Any])?["quota"] as? Int == 10)
                let memberId = try #require(UUID(uuidString: member.userId))
                let trail = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                    try await TestEnvironment.withPostgres { client in
                        let rows = try await client.query(
                            "SELECT count(*)::int FROM admin_actions WHERE action = 'quota' AND target = \("user:\(memberId.uuidString.lowercased())") AND admin_id = \(UUID(uuidString: admin.userId)!)")
                        for try await count in rows.decode(Int.self) { return count == 2 }
                        return false
                    }
                }
                #expect(trail, "both quota decisions are in the audit trail with the admin")
                _ = try await TestEnvironment.withPostgres { client in
                    try await client.query(
                        "UPDATE admin_console_sessions SET expires_at = now() - interval '1 second' WHERE user_id = \(UUID(uuidString: Self.userId(adminName))!)")
                }
                let expired = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/feedback"), headers: ["Cookie": second])
                #expect(expired.status == 303 && expired.header("Location") == "/admin/sign-in")

                // Signing out everywhere (the API's bearer sign-out) ends the console session too.
                let third = try await Self.signIn(gateway, admin: adminName)
                #expect(try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/users"), headers: ["Cookie": third]).status == 200)
                let everywhere = try await HTTPTestClient.postJSON(base.appendingPathComponent("v1/auth/logout"), ["everywhere": true], headers: admin.headers)
                #expect(everywhere.status == 204)
                let endedToo = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/users"), headers: ["Cookie": third])
                #expect(endedToo.status == 303 && endedToo.header("Location") == "/admin/sign-in")

                // Someone who is not an administrator gets no session, and no JSON twin either.
                let refused = try await HTTPTestClient.send("GET", try await Self.link(gateway, admin: memberName))
                #expect(refused.status == 403 && refused.header("Set-Cookie") == nil)
                #expect(String(decoding: refused.body, as: UTF8.self).contains("not an administrator"))
                for path in ["v1/admin/pipeline", "v1/admin/feedback", "v1/admin/users/\(member.userId)"] {
                    #expect(try await HTTPTestClient.send("GET", base.appendingPathComponent(path), headers: member.headers).status == 403, "\(path)")
                }
                // A bearer token is no way into the console pages.
                let bearer = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/usage"), headers: member.headers)
                #expect(bearer.status == 303)
            }
        }

        static let webClientId = "com.hearth.tests.web"

        /// Sign in with Apple from the browser: a one-time state and nonce go to Apple, Apple's
        /// form post comes back with them, and only an administrator's token opens a session.
        @Test func signInWithAppleOpensASessionForAnAdministratorOnce() async throws {
            let apple = try TestSigningKey(keyId: "apple-console-1")
            let adminSubject = "001234.\(UUID().uuidString.lowercased()).0001"
            let adminId = UserIdentity.userId(provider: .apple, subject: adminSubject).uuidString.lowercased()
            try await LocalJWKSServer.with(keys: [apple]) { url, _ in
                let environment = [
                    "HEARTH_APPLE_JWKS_URL": url, "HEARTH_APPLE_CLIENT_ID": Identity.clientId, "HEARTH_APPLE_WEB_CLIENT_ID": Self.webClientId,
                    "HEARTH_PUBLIC_URL": "https://hearth.example",
                    "HEARTH_ADMIN_USER_IDS": adminId, "HEARTH_RATE_LIMIT_PER_MIN": "100000",
                ]
                try await ServiceProcess.with("gateway", environment: environment) { gateway in
                    let base = gateway.baseURL
                    /// Starts a round trip: Apple's authorize URL's state and nonce.
                    func begin() async throws -> (state: String, nonce: String) {
                        let reply = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/sign-in/apple"))
                        #expect(reply.status == 303)
                        let location = try #require(reply.header("Location").flatMap(URLComponents.init(string:)))
                        #expect(location.host == "appleid.apple.com" && location.path == "/auth/authorize")
                        let items = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
                        #expect(items["response_mode"] == "form_post" && items["client_id"] == Self.webClientId)
                        #expect(items["redirect_uri"] == "https://hearth.example/admin/sign-in/apple")
                        return (try #require(items["state"]), try #require(items["nonce"]))
                    }
                    func token(subject: String, nonce: String, audience: String = Self.webClientId) async throws -> String {
                        var claims = TestClaims(issuer: Identity.appleIssuer, audience: audience, subject: subject)
                        claims.nonce = nonce
                        return try await apple.sign(claims)
                    }
                    let back = base.appendingPathComponent("admin/sign-in/apple")
                    let signInPage = String(decoding: try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/sign-in")).body, as: UTF8.self)
                    #expect(signInPage.contains(#"href="/admin/sign-in/apple""#))

                    // Apple's post (no cookie of ours: it is cross-site) with the state and the token.
                    let round = try await begin()
                    let signedIn = try await Self.form(back, ["state": round.state, "id_token": try await token(subject: adminSubject, nonce: round.nonce), "code": "c"], cookie: nil)
                    #expect(signedIn.status == 200 && Self.movesOnTo(signedIn) == "/admin/usage", "\(String(decoding: signedIn.body, as: UTF8.self))")
                    let setCookie = try #require(signedIn.header("Set-Cookie"))
                    #expect(setCookie.contains("; Secure"), "behind an https public URL the cookie is Secure")
                    let cookie = String(setCookie.prefix { $0 != ";" })
                    #expect(try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/users"), headers: ["Cookie": cookie]).status == 200)
                    // The state was used up: the same post again opens nothing.
                    let replayed = try await Self.form(back, ["state": round.state, "id_token": try await token(subject: adminSubject, nonce: round.nonce)], cookie: nil)
                    #expect(replayed.status == 403 && replayed.header("Set-Cookie") == nil)

                    // A token whose nonce is not the round trip's, or without a known state: refused.
                    let other = try await begin()
                    let wrongNonce = try await Self.form(back, ["state": other.state, "id_token": try await token(subject: adminSubject, nonce: round.nonce)], cookie: nil)
                    #expect(wrongNonce.status == 401 && wrongNonce.header("Set-Cookie") == nil)
                    let noState = try await Self.form(back, ["id_token": try await token(subject: adminSubject, nonce: other.nonce)], cookie: nil)
                    #expect(noState.status == 403)
                    // A token Apple issued to the app (its audience) does not open the console.
                    let appToken = try await begin()
                    let forApp = try await Self.form(
                        back, ["state": appToken.state, "id_token": try await token(subject: adminSubject, nonce: appToken.nonce, audience: Identity.clientId)], cookie: nil)
                    #expect(forApp.status == 401 && forApp.header("Set-Cookie") == nil)

                    // Someone Apple knows who is no administrator gets no session.
                    let third = try await begin()
                    let stranger = try await Self.form(
                        back, ["state": third.state, "id_token": try await token(subject: "001234.\(UUID().uuidString.lowercased()).0002", nonce: third.nonce)], cookie: nil)
                    #expect(stranger.status == 403 && stranger.header("Set-Cookie") == nil)
                }
            }
        }

        @Test func chromiumRendersEveryPageWithTheFiguresOfItsJSONTwin() async throws {
            let adminName = "Console viewer \(UUID().uuidString.prefix(8))"
            let adminId = Self.userId(adminName)
            try await AssistStack.with(gateway: ["HEARTH_ADMIN_USER_IDS": adminId]) { gateway, _ in
                let base = gateway.baseURL
                let admin = try await GatewayUser.signIn(gateway, name: adminName)
                let user = try await GatewayUser.signIn(gateway)
                // Traffic: runs of two modes, feedback on them, a submission waiting for moderation.
                var runIds: [String] = []
                for mode in ["meals", "chores"] {
                    let (events, _) = try await AssistStack.run(gateway, user: user, ["goal": "Plan our week", "mode": mode], wire: .ndjson)
                    runIds.append(events[0].runId)
                    _ = try await AssistStack.finishedRun(gateway, user: user, runId: events[0].runId)
                }
                for (runId, signal) in zip(runIds, ["up", "down"]) {
                    let given = try await HTTPTestClient.postJSON(base.appendingPathComponent("v1/feedback"), ["run_id": runId, "signal": signal], headers: user.headers)
                    #expect(given.status == 202)
                }
                let submitted = try await HTTPTestClient.postJSON(
                    base.appendingPathComponent("v1/activities/submissions"),
                    ["title": "Candle story hour \(UUID().uuidString.prefix(4))", "description": "Light a candle with a grown-up and tell stories by its glow until bedtime.",
                     "time_minutes": 15, "energy": "low", "contexts": ["indoor"], "category": "play", "min_age": 4],
                    headers: user.headers)
                #expect(submitted.status == 202)
                let submissionId = try #require(submitted.json["submission_id"] as? String)
                // The read models have the feedback and the submission (a worker may have held it).
                let runs = runIds
                let caughtUp = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                    let feedback = try await HTTPTestClient.send(
                        "GET", base.appendingPathComponent("v1/admin/feedback").appending(queryItems: [.init(name: "limit", value: "500")]), headers: admin.headers).json
                    let items = feedback["items"] as? [[String: Any]] ?? []
                    let mine = items.filter { runs.contains($0["run_id"] as? String ?? "") }
                    return mine.count == 2 && mine.allSatisfy { $0["mode"] is String }
                }
                #expect(caughtUp)

                // Usage: the cards as the JSON twin has them.
                let stats = try await HTTPTestClient.send(
                    "GET", base.appendingPathComponent("v1/admin/stats").appending(queryItems: [.init(name: "days", value: "7")]), headers: admin.headers).json
                let usage = try await Browser.open(gateway, admin: adminName, page: "/admin/usage?days=7", screenshot: "console-usage")
                #expect(usage.attribute("body", "data-section") == "usage")
                #expect(usage.value("total-runs") == "\(stats["total_runs"] as? Int ?? -1)")
                #expect(usage.value("total-tokens") == "\(stats["total_tokens"] as? Int ?? -1)")
                #expect(usage.value("total-users") == "\(stats["total_users"] as? Int ?? -1)")
                #expect(usage.count(of: "data-date=") == 7, "a bar per day of the period")
                #expect(usage.count(of: "data-day=") == 7)
                let costs = stats["cost_per_model_cents"] as? [String: Double] ?? [:]
                #expect(!costs.isEmpty && usage.count(of: "data-cost-model=") == costs.count, "\(costs)")
                #expect(usage.dom.contains(#"aria-current="page">7 days"#))

                // Feedback, filtered to this mode: this run's thumbs down with its goal and mode.
                let feedback = try await Browser.open(gateway, admin: adminName, page: "/admin/feedback?mode=chores&rating=down", screenshot: "console-feedback")
                let twin = try await HTTPTestClient.send(
                    "GET", base.appendingPathComponent("v1/admin/feedback").appending(queryItems: [.init(name: "mode", value: "chores"), .init(name: "rating", value: "down")]),
                    headers: admin.headers).json
                let items = twin["items"] as? [[String: Any]] ?? []
                #expect(feedback.value("feedback-count") == "\(items.count)")
                #expect(items.allSatisfy { $0["mode"] as? String == "chores" && $0["signal"] as? String == "down" })
                let mine = try #require(items.first { $0["run_id"] as? String == runIds[1] })
                #expect(feedback.dom.contains(#"data-feedback-id="\#(mine["feedback_id"] as? String ?? "?")""#))
                #expect(feedback.dom.contains("Plan our week"), "the run's (redacted) goal")
                #expect(feedback.count(of: "data-week=") == 12)

                // Pipeline: every projection of the twin, with its lag.
                let pipelineTwin = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/admin/pipeline"), headers: admin.headers).json
                let projections = pipelineTwin["projections"] as? [[String: Any]] ?? []
                #expect(projections.contains { $0["projection"] as? String == "households" })
                let pipeline = try await Browser.open(gateway, admin: adminName, page: "/admin/pipeline", screenshot: "console-pipeline")
                #expect(pipeline.value("projection-count") == "\(projections.count)")
                for projection in projections.compactMap({ $0["projection"] as? String }) {
                    #expect(pipeline.dom.contains(#"data-projection="\#(projection)""#), "\(projection)")
                }

                // Moderation: the submission waits (pending, or held by a worker's caution rule).
                let status = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                    for status in ["pending", "held"] {
                        let queue = try await HTTPTestClient.send(
                            "GET", base.appendingPathComponent("v1/admin/moderation").appending(queryItems: [.init(name: "status", value: status)]), headers: admin.headers).json
                        if (queue["submissions"] as? [[String: Any]] ?? []).contains(where: { $0["submission_id"] as? String == submissionId }) { return true }
                    }
                    return false
                }
                #expect(status)
                var moderation = try await Browser.open(gateway, admin: adminName, page: "/admin/moderation?status=held", screenshot: "console-moderation")
                if !moderation.dom.contains(submissionId) {
                    moderation = try await Browser.open(gateway, admin: adminName, page: "/admin/moderation?status=pending", screenshot: "console-moderation")
                }
                #expect(moderation.dom.contains(#"data-submission-id="\#(submissionId)""#))
                #expect(moderation.dom.contains("/admin/moderation/\(submissionId)/approve"))

                // Users: the user's runs and quota, as the twin says; nothing they wrote.
                let detail = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/admin/users/\(user.userId)"), headers: admin.headers).json
                #expect(detail["runs_30_days"] as? Int == 2)
                let users = try await Browser.open(gateway, admin: adminName, page: "/admin/users?q=\(user.userId)", screenshot: "console-users")
                #expect(users.value("user-runs") == "2")
                #expect(users.value("user-quota-used") == "\((detail["quota"] as? [String: Any])?["used"] as? Int ?? -1)")
                #expect(users.value("user-sign-ins") == "\((detail["sign_ins"] as? [String: Any])?["total"] as? Int ?? -1)")

                // Approving from the page (the form's CSRF token, the session's cookie).
                let cookie = try await Self.signIn(gateway, admin: adminName)
                let queuePage = try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/moderation"), headers: ["Cookie": cookie])
                let csrf = try #require(Self.csrf(in: String(decoding: queuePage.body, as: UTF8.self)))
                let approved = try await Self.form(base.appendingPathComponent("admin/moderation/\(submissionId)/approve"), ["csrf": csrf], cookie: cookie)
                #expect(approved.status == 303 && approved.header("Location") == "/admin/moderation?done=approved")
                let decided = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                    let queue = try await HTTPTestClient.send(
                        "GET", base.appendingPathComponent("v1/admin/moderation").appending(queryItems: [.init(name: "status", value: "approved")]), headers: admin.headers).json
                    return (queue["submissions"] as? [[String: Any]] ?? []).contains { $0["submission_id"] as? String == submissionId }
                }
                #expect(decided, "the console's approval is an activity.moderated like the API's")
                let twice = try await Self.form(base.appendingPathComponent("admin/moderation/\(submissionId)/approve"), ["csrf": csrf], cookie: cookie)
                #expect(twice.status == 409)
            }
        }

        /// A read model constraint stands in for a bug: the event is parked, the *Pipeline* page
        /// lists it; once the "fix" is in, its redrive button sends it back, it is projected, and
        /// the audit trail says who did it.
        @Test func aRedriveFromThePipelinePageReprojectsAParkedEventOnceItCanBeApplied() async throws {
            let adminName = "Console operator \(UUID().uuidString.prefix(8))"
            let adminId = try #require(UUID(uuidString: Self.userId(adminName)))
            let blockedName = "console-blocked-\(UUID().uuidString.prefix(8).lowercased())"
            let constraint = "test_console_\(UUID().uuidString.prefix(8).lowercased())"
            let blocked = HouseholdFixtures.event(name: blockedName)
            try await TestEnvironment.withPostgres { client in
                try await client.query(PostgresQuery(unsafeSQL: "ALTER TABLE households ADD CONSTRAINT \(constraint) CHECK (name IS DISTINCT FROM '\(blockedName)') NOT VALID"))
                try await ServiceProcess.with("gateway", environment: [
                    "HEARTH_ADMIN_USER_IDS": adminId.uuidString, "HEARTH_PROJECTION_MAX_ATTEMPTS": "1", "HEARTH_RATE_LIMIT_PER_MIN": "100000",
                ]) { gateway in
                    let base = gateway.baseURL
                    let admin = try await GatewayUser.signIn(gateway, name: adminName)
                    let positions = try await HouseholdFixtures.publish([blocked])
                    let eventId = blocked.metadata.id.uuidString.lowercased()
                    let parked = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                        let report = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/admin/pipeline"), headers: admin.headers).json
                        return (report["dead_letters"] as? [[String: Any]] ?? []).contains { $0["event_id"] as? String == eventId }
                    }
                    #expect(parked, "the blocked event is parked")
                    let page = try await Browser.open(gateway, admin: adminName, page: "/admin/pipeline", screenshot: nil)
                    #expect(page.dom.contains(#"data-event-id="\#(eventId)""#), "the page lists the parked event")

                    try await client.query(PostgresQuery(unsafeSQL: "ALTER TABLE households DROP CONSTRAINT \(constraint)"))
                    let cookie = try await Self.signIn(gateway, admin: adminName)
                    let html = String(decoding: try await HTTPTestClient.send("GET", base.appendingPathComponent("admin/pipeline"), headers: ["Cookie": cookie]).body, as: UTF8.self)
                    let csrf = try #require(Self.csrf(in: html))
                    let position = try #require(positions.first)
                    let target = ["projection": "households", "topic": position.topic, "partition": "\(position.partition)", "offset": "\(position.offset)"]
                    let noToken = try await Self.form(base.appendingPathComponent("admin/pipeline/redrive"), target, cookie: cookie)
                    #expect(noToken.status == 403)
                    let redriven = try await Self.form(base.appendingPathComponent("admin/pipeline/redrive"), target.merging(["csrf": csrf]) { $1 }, cookie: cookie)
                    #expect(redriven.status == 303 && redriven.header("Location") == "/admin/pipeline?done=redriven", "\(String(decoding: redriven.body, as: UTF8.self))")
                    let projected = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                        try await HouseholdFixtures.projected([blocked.data.householdId], client: client).rows == 1
                    }
                    #expect(projected, "the redriven event is projected")
                    let audited = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                        let report = try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/admin/pipeline"), headers: admin.headers).json
                        let entry = (report["dead_letters"] as? [[String: Any]] ?? []).first { $0["event_id"] as? String == eventId }
                        return entry?["redriven_by"] as? String == adminId.uuidString.lowercased() && entry?["redriven_at"] is String
                    }
                    #expect(audited, "the page names who redrove it")
                    let twice = try await Self.form(base.appendingPathComponent("admin/pipeline/redrive"), target.merging(["csrf": csrf]) { $1 }, cookie: cookie)
                    #expect(twice.status == 409, "one redrive per parked position")
                    let trail = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { @Sendable in
                        let rows = try await client.query(
                            "SELECT admin_id, lower(detail->>'event_id') FROM admin_actions WHERE action = 'redrive' AND target = \("households:\(position.topic)/\(position.partition)@\(position.offset)")")
                        for try await (admin, event) in rows.decode((UUID, String?).self) { return admin == adminId && event == eventId }
                        return false
                    }
                    #expect(trail, "admin.dead_letter_redriven, projected into admin_actions, names the admin and the event")
                    let unknown = try await HTTPTestClient.postJSON(
                        base.appendingPathComponent("v1/admin/pipeline/redrive"), ["projection": "households", "topic": "households", "partition": 0, "offset": 999_999_999],
                        headers: admin.headers)
                    #expect(unknown.status == 404)
                    let badTopic = try await HTTPTestClient.postJSON(
                        base.appendingPathComponent("v1/admin/pipeline/redrive"), ["projection": "households", "topic": "nope", "partition": 0, "offset": 1],
                        headers: admin.headers)
                    #expect(badTopic.status == 400 && badTopic.errorField == "topic")
                }
            }
        }
    }
}

/// Headless Chromium (Debian's `chromium`): opens a console page through a fresh sign-in link, so
/// the browser itself follows the redirect and keeps the cookie, and hands back the DOM it
/// rendered. With `HEARTH_CONSOLE_SCREENSHOTS` set to a folder, it also saves a screenshot there.
enum Browser {
    struct Page {
        let dom: String

        /// `data-value` of the element with this id.
        func value(_ id: String) -> String? {
            guard let range = dom.range(of: #"id="\#(id)" data-value=""#) else { return nil }
            return String(dom[range.upperBound...].prefix { $0 != "\"" })
        }

        func attribute(_ tag: String, _ name: String) -> String? {
            guard let start = dom.range(of: "<\(tag) ") else { return nil }
            let end = dom[start.upperBound...].firstIndex(of: ">") ?? dom.endIndex
            guard let attribute = dom[start.upperBound..<end].range(of: #"\#(name)=""#) else { return nil }
            return String(dom[attribute.upperBound...].prefix { $0 != "\"" })
        }

        func count(of text: String) -> Int { dom.components(separatedBy: text).count - 1 }
    }

    static func open(_ gateway: ServiceProcess, admin: String, page: String, screenshot: String?) async throws -> Page {
        let link = try await BackboneSuite.AdminConsole.link(gateway, admin: admin, next: page)
        // The sign-in page moves on by itself: the virtual time budget lets it before the DOM is read.
        let dom = try await run(["--virtual-time-budget=5000", "--dump-dom", link.absoluteString])
        #expect(dom.contains("<header class=\"console\">"), "\(page) rendered the console, not \(dom.prefix(300))")
        if let screenshot, let folder = ProcessInfo.processInfo.environment["HEARTH_CONSOLE_SCREENSHOTS"] {
            let again = try await BackboneSuite.AdminConsole.link(gateway, admin: admin, next: page)
            _ = try await run(["--virtual-time-budget=5000", "--window-size=1280,1100", "--screenshot=\(folder)/\(screenshot).png", again.absoluteString])
        }
        return Page(dom: dom)
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs chromium to completion (a minute at most) and returns what it printed.
    static func run(_ arguments: [String]) async throws -> String {
        guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Failed(description: "chromium is not installed (make setup installs Debian's chromium)")
        }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID())")
        defer { try? FileManager.default.removeItem(at: profile) }
        let tool = try CommandLineTool.start(
            ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
             "--user-data-dir=\(profile.path)"] + arguments,
            executable: chromium)
        defer { tool.stop() }
        let deadline = ContinuousClock.now + .seconds(60)
        while tool.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        guard !tool.isRunning, tool.status == 0 else {
            throw Failed(description: "chromium \(arguments) failed (status \(tool.isRunning ? -1 : tool.status)): \(tool.errors.suffix(2000))")
        }
        return tool.output
    }
}
