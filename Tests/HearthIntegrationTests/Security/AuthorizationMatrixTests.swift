import Foundation
import HearthEvents
import HearthStore
import Testing

extension BackboneSuite {
    /// The authorization matrix: every route of `/openapi.json` that names a resource, aimed at
    /// household A's real resources by someone who has no business there — a user of household B,
    /// a coach of A without the scope it needs, a former coach of A, a coach of B. Every answer is a
    /// 404 (a 403 where the route is for a role the caller has not: admins, coaches), never 2xx,
    /// never 5xx. A route added to the document without its row here fails the test.
    @Suite struct AuthorizationMatrix {
        /// What a row expects of the intruders.
        enum Expectation {
            /// 404 for everyone.
            case hidden
            /// 403 for everyone: a route of a role none of them has (admins).
            case forbiddenRole
            /// 403 for callers without the role (a member on a coach's route), 404 for the rest.
            case coachOnly
            /// 401 for everyone: a form of the admin console, which answers only to a console
            /// session's cookie (and its CSRF token); a bearer token is no session.
            case consoleSession
            /// Not a resource of A's: public content, or a credential in the path (an invite code,
            /// a feed token) that is meant to let its holder in. The reason is the row's documentation.
            case notAResource(String)
        }

        /// Household A's resources, made for real before the intruders try them.
        struct Fixture {
            var ids: [String: String]

            func path(_ template: String) -> String {
                var path = template
                for (name, value) in ids { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
                return path
            }
        }

        /// Every resource route, `METHOD template` → the path's ids (by template) and what is expected.
        static let rows: [String: Expectation] = {
            var rows: [String: Expectation] = [
                "GET /v1/households/{id}": .hidden,
                "GET /v1/households/by_user/{user_id}": .hidden,
                "POST /v1/households/{id}/members": .hidden,
                "POST /v1/households/{id}/invites": .hidden,
                "POST /v1/invites/{code}/accept": .notAResource("an invite code is the credential that lets its holder join"),
                "POST /v1/households/{id}/leave": .hidden,
                "DELETE /v1/households/{id}/members/{user_id}": .hidden,
                "PUT /v1/households/{id}/members/{user_id}/role": .hidden,
                "GET /v1/assist/runs/{run_id}": .hidden,
                "GET /v1/assist/runs/{run_id}/events": .hidden,
                "GET /v1/users/{user_id}/usage": .hidden,
                "DELETE /v1/reminders/{id}": .hidden,
                "DELETE /v1/devices/{token}": .hidden,
                "POST /v1/notifications/{id}/read": .hidden,
                "PUT /v1/calendar/events/{id}": .hidden,
                "DELETE /v1/calendar/events/{id}": .hidden,
                "DELETE /v1/calendar/feeds/{id}": .hidden,
                "GET /v1/calendar/feeds/{token}.ics": .notAResource("the feed token is the credential a calendar app holds"),
                "DELETE /v1/admin/documents/{id}": .forbiddenRole,
                "POST /v1/chats/{id}/messages": .hidden,
                "GET /v1/chats/{id}/messages": .hidden,
                "POST /v1/chats/{id}/media": .hidden,
                "GET /v1/chats/{id}/media/{media_id}": .hidden,
                "GET /v1/chats/{id}/media/{media_id}/thumbnail": .hidden,
                "POST /v1/chats/{id}/read": .hidden,
                "GET /v1/chats/{id}/stream": .hidden,
                "POST /v1/chats/{id}/typing": .hidden,
                "POST /v1/chats/{id}/messages/{mid}/assist": .hidden,
                "GET /v1/households/{id}/profile": .hidden,
                "POST /v1/profile/facts/{id}/confirm": .hidden,
                "POST /v1/profile/facts/{id}/reject": .hidden,
                "POST /v1/profile/facts/{id}/link": .hidden,
                "GET /v1/assistant/conversations/{id}": .hidden,
                "PATCH /v1/assistant/actions/{id}": .hidden,
                "POST /v1/assistant/actions/{id}/confirm": .hidden,
                "POST /v1/assistant/actions/{id}/reject": .hidden,
                "GET /v1/me/export/{id}": .hidden,
                "DELETE /v1/webhooks/{id}": .hidden,
                "POST /v1/webhooks/{id}/rotate": .hidden,
                "GET /v1/wellbeing/checkins/{id}": .hidden,
                "PATCH /v1/wellbeing/checkins/{id}": .hidden,
                "DELETE /v1/wellbeing/checkins/{id}": .hidden,
                "GET /v1/wellbeing/quizzes/{id}": .notAResource("a quiz of the public catalogue"),
                "POST /v1/wellbeing/quizzes/{id}/submit": .notAResource("a quiz of the public catalogue; the answers are the caller's own"),
                "POST /v1/wellbeing/quizzes/{id}/next": .notAResource("a quiz of the public catalogue; the answers are the caller's own"),
                "GET /v1/wellbeing/quizzes/{id}/tips": .notAResource("a quiz of the public catalogue"),
                "GET /v1/wellbeing/exercises/{id}": .notAResource("an exercise of the public catalogue"),
                "GET /v1/wellbeing/exercises/{id}/audio": .notAResource("an exercise of the public catalogue"),
                "POST /v1/wellbeing/exercises/{id}/complete": .notAResource("an exercise of the public catalogue; the completion is the caller's own"),
                "GET /v1/wellbeing/simulations/{id}": .hidden,
                "POST /v1/wellbeing/simulations/{id}/choose": .hidden,
                "DELETE /v1/coach/clients/{household_id}": .coachOnly,
                "POST /v1/households/{id}/coaches": .hidden,
                "GET /v1/households/{id}/coaches": .hidden,
                "PUT /v1/households/{id}/coaches/{coach_id}/scope": .hidden,
                "DELETE /v1/households/{id}/coaches/{coach_id}": .hidden,
                "GET /v1/activities/submissions/{id}": .hidden,
                "POST /v1/admin/moderation/{id}/approve": .forbiddenRole,
                "GET /v1/admin/users/{user_id}": .forbiddenRole,
                "PUT /v1/admin/users/{user_id}/quota": .forbiddenRole,
                "POST /admin/users/{user_id}/quota": .consoleSession,
                "POST /admin/moderation/{id}/approve": .consoleSession,
                "POST /admin/moderation/{id}/reject": .consoleSession,
                "POST /v1/admin/moderation/{id}/reject": .forbiddenRole,
                "POST /v1/admin/activities/{id}/withdraw": .forbiddenRole,
                "GET /v1/activities/packs/{file}": .notAResource("a pack of the public feed, named by its hash"),
                "PUT /v1/activities/favorites/{activity_id}": .notAResource("an activity of the public feed; the favourite is the caller's own"),
                "DELETE /v1/activities/favorites/{activity_id}": .notAResource("an activity of the public feed; the favourite is the caller's own"),
            ]
            for route in [
                "GET /v1/children/{id}", "GET /v1/children/{id}/timeline", "GET /v1/children/{id}/changes", "GET /v1/children/{id}/stats",
                "GET /v1/children/{id}/next-feed", "GET /v1/children/{id}/charts/{chart}", "GET /v1/children/{id}/export",
                "PUT /v1/children/{id}/profile", "GET /v1/children/{id}/check-ins", "POST /v1/children/{id}/check-ins/{check_in_id}",
                "GET /v1/children/{id}/photos", "POST /v1/children/{id}/photos", "GET /v1/children/{id}/photos/{log_id}",
                "DELETE /v1/children/{id}/photos/{log_id}", "GET /v1/children/{id}/photos/{log_id}/image",
                "GET /v1/children/{id}/photos/{log_id}/thumbnail", "GET /v1/children/{id}/summaries", "POST /v1/children/{id}/summaries",
                "GET /v1/children/{id}/summaries/{sid}", "POST /v1/children/{id}/imports", "GET /v1/children/{id}/imports/{iid}",
                "PATCH /v1/children/{id}/imports/{iid}/suggestions/{n}", "POST /v1/children/{id}/imports/{iid}/commit",
            ] {
                rows[route] = .hidden
            }
            for kind in ["feeds", "sleeps", "diapers", "growth", "medications", "foods"] {
                rows["POST /v1/children/{id}/\(kind)"] = .hidden
                for method in ["GET", "PATCH", "DELETE"] { rows["\(method) /v1/children/{id}/\(kind)/{log_id}"] = .hidden }
            }
            return rows
        }()

        /// A body a legitimate caller could send, so that what answers is the authorization check
        /// and not the body's validation.
        static func body(for route: String) -> [String: Any]? {
            let method = route.split(separator: " ").first.map(String.init) ?? "GET"
            guard method != "GET", method != "DELETE" else { return nil }
            let path = String(route.split(separator: " ").last ?? "")
            switch path {
            case "/v1/households/{id}/members": return ["name": "Intruder", "role": "parent"]
            case "/v1/households/{id}/members/{user_id}/role": return ["role": "adult"]
            case "/v1/calendar/events/{id}": return ["title": "Taken over", "start": "2026-05-04T09:00:00Z", "end": "2026-05-04T10:00:00Z"]
            case "/v1/chats/{id}/messages": return ["text": "let me in", "client_id": "intruder-1"]
            case "/v1/chats/{id}/messages/{mid}/assist": return ["action": "summarize"]
            case "/v1/profile/facts/{id}/link": return ["member_id": UUID().uuidString]
            case "/v1/assistant/actions/{id}": return ["arguments": ["title": "x", "at": "2026-05-04T09:00", "member": NSNull()]]
            case "/v1/wellbeing/checkins/{id}": return ["mood": 5]
            case "/v1/wellbeing/simulations/{id}/choose": return ["choice": "a"]
            case "/v1/households/{id}/coaches": return ["code": "ABCDEFGHJKMN"]
            case "/v1/households/{id}/coaches/{coach_id}/scope": return ["calendar": "read"]
            case "/v1/children/{id}/summaries": return ["from": "2026-01-01", "to": "2026-01-07"]
            case "/v1/children/{id}/profile": return ["sex": "female"]
            case "/v1/children/{id}/check-ins/{check_in_id}": return ["reaction": "none"]
            case "/v1/children/{id}/imports/{iid}/suggestions/{n}": return ["accepted": true]
            case "/v1/children/{id}/feeds": return ["method": "bottle", "amount": 100, "unit": "ml"]
            case "/v1/admin/moderation/{id}/reject": return ["reason": "spam"]
            case "/v1/admin/activities/{id}/withdraw": return ["reason": "taken over"]
            case "/v1/children/{id}/feeds/{log_id}": return ["amount": 120]
            default: return [:]
            }
        }

        /// The resource routes the document names.
        static func documentedRoutes() throws -> Set<String> {
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Services/Gateway/OpenAPI/openapi.json")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var routes = Set<String>()
            for (path, operations) in paths where path.contains("{") {
                for method in operations.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                    routes.insert("\(method.uppercased()) \(path)")
                }
            }
            return routes
        }

        @Test func everyRouteThatNamesAResourceHasARow() throws {
            let documented = try Self.documentedRoutes()
            let missing = documented.subtracting(Self.rows.keys).sorted()
            #expect(missing.isEmpty, "routes without a row in the authorization matrix: \(missing)")
            let stale = Set(Self.rows.keys).subtracting(documented).sorted()
            #expect(stale.isEmpty, "rows for routes the document no longer has: \(stale)")
        }

        @Test func noIntruderReachesAnotherHouseholdsResources() async throws {
            try await ServiceProcess.with("notifier") { _ in try await AssistStack.with { gateway, _ in
                func url(_ path: String) -> URL { URL(string: gateway.baseURL.absoluteString + path)! }
                let (alice, household) = try await GatewayUser.withHousehold(gateway, name: "The Matrix A")
                let (bob, householdB) = try await GatewayUser.withHousehold(gateway, name: "The Matrix B")
                var ids: [String: String] = ["id": household, "household_id": household, "user_id": alice.userId]

                // Coaches: one of A with chat only, one of A whose coaching ended, one of B.
                func coach(of households: [(GatewayUser, String)]) async throws -> GatewayUser {
                    let coach = try await Coaching.signUpCoach(gateway)
                    for (owner, id) in households {
                        let invite = try await HTTPTestClient.send("POST", url("/v1/coach/clients"), headers: coach.headers)
                        let code = try #require(invite.json["code"] as? String)
                        let accepted = try await HTTPTestClient.postJSON(url("/v1/households/\(id)/coaches"), ["code": code], headers: owner.headers)
                        #expect(accepted.status == 201, "\(accepted.text)")
                    }
                    return coach
                }
                let chatOnly = try await coach(of: [(alice, household)])
                let former = try await coach(of: [(alice, household)])
                #expect(try await HTTPTestClient.send("DELETE", url("/v1/households/\(household)/coaches/\(former.userId)"), headers: alice.headers).status == 200)
                let otherCoach = try await coach(of: [(bob, householdB)])
                ids["coach_id"] = chatOnly.userId

                // A's resources.
                let child = try await HTTPTestClient.postJSON(
                    url("/v1/households/\(household)/members"), ["name": "Mira", "role": "child", "birthdate": "2025-09-01"], headers: alice.headers)
                let childId = try #require(child.json["member_id"] as? String, "\(child.text)")
                let childProjected = try await ConversationProfile.poll {
                    try await HTTPTestClient.send("GET", url("/v1/children/\(childId)"), headers: alice.headers).status == 200
                }
                #expect(childProjected)
                let feed = try await HTTPTestClient.postJSON(url("/v1/children/\(childId)/feeds"), ["method": "bottle", "amount": 90, "unit": "ml"], headers: alice.headers)
                let chat = try await HTTPTestClient.postJSON(url("/v1/chats"), ["title": "Family"], headers: alice.headers)
                let chatId = try #require(chat.json["chat_id"] as? String)
                let message = try await HTTPTestClient.postJSON(url("/v1/chats/\(chatId)/messages"), ["text": "Dinner at six", "client_id": "m-1"], headers: alice.headers)
                let event = try await HTTPTestClient.postJSON(
                    url("/v1/calendar/events"), ["title": "Dentist", "start": "2026-05-04T09:00:00Z", "end": "2026-05-04T09:45:00Z"], headers: alice.headers)
                let calendarFeed = try await HTTPTestClient.send("POST", url("/v1/calendar/feeds"), headers: alice.headers)
                let reminder = try await HTTPTestClient.postJSON(url("/v1/reminders"), ["title": "Bins", "at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(30 * 86_400))], headers: alice.headers)
                let webhook = try await HTTPTestClient.postJSON(
                    url("/v1/webhooks"), ["url": "https://hooks.example.com/matrix", "secret": "a-secret-of-sixteen"], headers: alice.headers)
                let deviceToken = String(repeating: "ab", count: 32)
                #expect(try await HTTPTestClient.postJSON(url("/v1/devices"), ["platform": "ios", "token": deviceToken], headers: alice.headers).status == 202)
                let export = try await HTTPTestClient.send("POST", url("/v1/me/export"), headers: alice.headers)
                let checkIn = try await HTTPTestClient.postJSON(url("/v1/wellbeing/checkins"), ["mood": 6, "urge_level": 3], headers: alice.headers)
                let submission = try await HTTPTestClient.postJSON(
                    url("/v1/activities/submissions"),
                    ["title": "Matrix walk", "description": "A walk round the block counting red doors and blue cars.", "time_minutes": 15, "energy": "low",
                     "contexts": ["outdoor"], "category": "nature"], headers: alice.headers)
                let asked = try await HTTPTestClient.postJSON(
                    url("/v1/assistant/messages"), ["text": "Remind me tomorrow at 7am to pack swim bags", "time_zone": "Europe/London"],
                    headers: alice.headers(["Accept": "application/x-ndjson"]))
                let runEvents = try AssistWire.ndjson.parse(asked.body).events
                let action = (runEvents.first { $0.event == "final" }?.object["actions"] as? [[String: Any]])?.first
                let factId = UUID()
                let publisher = EventPublisher(producer: try KafkaTestEnvironment.producer(clientId: "hearth-tests-matrix"), source: "tests", keys: nil)
                try await publisher.publish(ProfileFactExtractedV2(
                    factId: factId, householdId: try #require(UUID(uuidString: household)), memberId: nil, subject: "Noor", kind: "allergy",
                    value: "peanut", polarity: "add", confidence: 0.9, messageId: UUID(), chatId: try #require(UUID(uuidString: chatId)),
                    quotedSpan: "Noor is allergic to peanuts", extractor: "rules", unknownSubject: true), correlationId: "matrix")
                let factProjected = try await ConversationProfile.poll {
                    ConversationProfile.facts(try await ConversationProfile.profile(gateway, alice, household: household))
                        .contains { $0["fact_id"] as? String == factId.uuidString.lowercased() }
                }
                #expect(factProjected)
                for (name, reply) in [("feed", feed), ("reminder", reminder), ("check-in", checkIn), ("submission", submission), ("webhook", webhook), ("export", export), ("event", event)] {
                    #expect((200..<300).contains(reply.status), "\(name): \(reply.status) \(reply.text)")
                }
                let found: [String: String?] = [
                    "child": childId, "log_id": (feed.json["log"] as? [String: Any])?["log_id"] as? String, "chat": chatId,
                    "mid": (message.json["message"] as? [String: Any])?["message_id"] as? String,
                    "event": event.json["event_id"] as? String, "feed": calendarFeed.json["feed_id"] as? String,
                    "reminder": reminder.json["reminder_id"] as? String, "webhook": webhook.json["webhook_id"] as? String,
                    "export": export.json["export_id"] as? String, "checkin": (checkIn.json["checkin"] as? [String: Any])?["checkin_id"] as? String,
                    "run_id": asked.header("X-Run-Id"), "conversation": asked.header("X-Conversation-Id"), "action": action?["action_id"] as? String,
                    "submission": submission.json["submission_id"] as? String,
                ]
                for (name, value) in found { #expect(value != nil, "no \(name) for the matrix") }
                // The notifier has the reminder and the device: an intruder's cancel meets their owner.
                let reminderId = try #require(UUID(uuidString: (found["reminder"] ?? nil) ?? ""))
                let notified = try await ConversationProfile.poll {
                    try await TestEnvironment.withPostgres { client in
                        let rows = try await client.query(
                            """
                            SELECT (SELECT count(*) FROM reminders WHERE reminder_id = \(reminderId))
                                 + (SELECT count(*) FROM notification_devices WHERE token = \(deviceToken) AND active)
                            """, logger: TestEnvironment.logger)
                        for try await count in rows.decode(Int64.self) { return count == 2 }
                        return false
                    }
                }
                #expect(notified, "the notifier never projected the reminder and the device")
                func real(_ name: String) -> String { (found[name] ?? nil) ?? UUID().uuidString.lowercased() }

                // Each row's path, with A's ids (the rest: ids that exist nowhere, behind A's gate).
                func path(for route: String) -> String {
                    var template = String(route.split(separator: " ").last ?? "")
                    let values: [String: String] = {
                        switch true {
                        case template.hasPrefix("/v1/children/"): return ["id": real("child")]
                        case template.hasPrefix("/v1/chats/"): return ["id": real("chat")]
                        case template.hasPrefix("/v1/calendar/events/"): return ["id": real("event")]
                        case template.hasPrefix("/v1/calendar/feeds/{id}"): return ["id": real("feed")]
                        case template.hasPrefix("/v1/reminders/"): return ["id": real("reminder")]
                        case template.hasPrefix("/v1/webhooks/"): return ["id": real("webhook")]
                        case template.hasPrefix("/v1/me/export/"): return ["id": real("export")]
                        case template.hasPrefix("/v1/wellbeing/checkins/"): return ["id": real("checkin")]
                        case template.hasPrefix("/v1/activities/submissions/"): return ["id": real("submission")]
                        case template.hasPrefix("/v1/assistant/conversations/"): return ["id": real("conversation")]
                        case template.hasPrefix("/v1/assistant/actions/"): return ["id": real("action")]
                        case template.hasPrefix("/v1/profile/facts/"): return ["id": factId.uuidString.lowercased()]
                        case template.hasPrefix("/v1/devices/"): return ["token": deviceToken]
                        default: return [:]
                        }
                    }()
                    for (name, value) in values { template = template.replacingOccurrences(of: "{\(name)}", with: value) }
                    let fixed: [String: String] = [
                        "log_id": real("log_id"), "mid": real("mid"), "run_id": real("run_id"), "chart": "weight.svg", "n": "0",
                        "sid": UUID().uuidString.lowercased(), "iid": UUID().uuidString.lowercased(), "media_id": UUID().uuidString.lowercased(),
                        "check_in_id": UUID().uuidString.lowercased(), "token": UUID().uuidString.lowercased(), "code": "ABCDEFGHJKMN",
                    ]
                    for (name, value) in fixed { template = template.replacingOccurrences(of: "{\(name)}", with: value) }
                    return Fixture(ids: ids).path(template)
                }

                // Feeds of A's child: the one real log must be the first kind's.
                let intruders: [(String, GatewayUser, isCoach: Bool)] = [
                    ("a user of household B", bob, false), ("a coach of A without the scope", chatOnly, true),
                    ("a former coach of A", former, true), ("a coach of B", otherCoach, true),
                ]
                var failures: [String] = []
                for (route, expectation) in Self.rows.sorted(by: { $0.key < $1.key }) {
                    if case .notAResource = expectation { continue }
                    let method = String(route.split(separator: " ").first ?? "GET")
                    let target = url(path(for: route))
                    for (who, intruder, isCoach) in intruders {
                        // The chat-only coach ending their own relationship is their right, not an intrusion.
                        if route == "DELETE /v1/coach/clients/{household_id}", intruder.userId == chatOnly.userId { continue }
                        let body = try Self.body(for: route).map { try JSONSerialization.data(withJSONObject: $0) }
                        let reply = try await HTTPTestClient.send(method, target, body: body, headers: intruder.headers)
                        let expected: Int = switch expectation {
                        case .forbiddenRole: 403
                        case .coachOnly: isCoach ? 404 : 403
                        case .consoleSession: 401
                        default: 404
                        }
                        if reply.status != expected {
                            failures.append("\(who) → \(route): \(reply.status) \(String(reply.text.prefix(160)))")
                        }
                    }
                }
                #expect(failures.isEmpty, "\(failures.count) answers out of the matrix:\n\(failures.joined(separator: "\n"))")

                // The resources were real: their owner reaches each of them.
                for (check, status) in [
                    ("/v1/children/\(childId)", 200), ("/v1/chats/\(chatId)/messages", 200), ("/v1/households/\(household)/profile", 200),
                    ("/v1/assistant/conversations/\(real("conversation"))", 200), ("/v1/me/export/\(real("export"))", 200),
                    ("/v1/wellbeing/checkins/\(real("checkin"))", 200), ("/v1/assist/runs/\(real("run_id"))", 200),
                ] {
                    let reply = try await HTTPTestClient.send("GET", url(check), headers: alice.headers)
                    #expect(reply.status == status, "alice → \(check): \(reply.status)")
                }
            } }
        }
    }
}
