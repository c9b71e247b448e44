import Foundation
import HearthDomain
import Testing

extension BackboneSuite {
    /// A user reads and writes only their own household; another household's id is a 404, the
    /// admin routes are a 403 for everyone not listed in HEARTH_ADMIN_USER_IDS.
    @Suite struct Tenancy {
        static func adminId(named name: String) -> String {
            UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: name)).uuidString.lowercased()
        }

        /// Single use holds under a race: of six users redeeming one code at the same instant,
        /// exactly one joins and the others get a 409 and stay out.
        @Test func ofUsersRedeemingOneInviteAtOnceExactlyOneJoins() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let (alice, household) = try await GatewayUser.withHousehold(gateway, name: "Alice's")
                let url = { (path: String) in gateway.baseURL.appendingPathComponent(path) }
                for _ in 1...3 {
                    let invite = try await HTTPTestClient.send("POST", url("v1/households/\(household)/invites"), headers: alice.headers)
                    let code = try #require(invite.json["code"] as? String)
                    var racers: [GatewayUser] = []
                    for _ in 1...6 { racers.append(try await GatewayUser.signIn(gateway)) }
                    let accept = url("v1/invites/\(code)/accept")
                    let replies = try await withThrowingTaskGroup(of: (String, HTTPTestClient.Reply).self) { group in
                        for racer in racers {
                            group.addTask { (racer.userId, try await HTTPTestClient.send("POST", accept, headers: racer.headers)) }
                        }
                        return try await group.reduce(into: [String: HTTPTestClient.Reply]()) { $0[$1.0] = $1.1 }
                    }
                    let winners = replies.filter { $0.value.status == 200 }.map(\.key)
                    #expect(winners.count == 1, "\(replies.mapValues(\.status))")
                    #expect(replies.values.filter { $0.status == 409 && $0.errorCode == "invite_used" }.count == 5)
                    for racer in racers {
                        let read = try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: racer.headers)
                        #expect(read.status == (winners.contains(racer.userId) ? 200 : 404))
                    }
                    // The winner trying again is still in; a loser trying again is still refused.
                    if let winner = racers.first(where: { winners.contains($0.userId) }), let loser = racers.first(where: { !winners.contains($0.userId) }) {
                        #expect(try await HTTPTestClient.send("POST", accept, headers: winner.headers).status == 200)
                        #expect(try await HTTPTestClient.send("POST", accept, headers: loser.headers).status == 409)
                    }
                }
            }
        }

        @Test func everyHouseholdRouteHidesOtherHouseholds() async throws {
            let adminName = "Admin \(UUID().uuidString.prefix(8))"
            try await ServiceProcess.with("gateway", environment: ["HEARTH_ADMIN_USER_IDS": Self.adminId(named: adminName)]) { gateway in
                let (alice, aliceHousehold) = try await GatewayUser.withHousehold(gateway, name: "Alice's")
                let (bob, bobHousehold) = try await GatewayUser.withHousehold(gateway, name: "Bob's")
                #expect(aliceHousehold != bobHousehold)
                let url = { (path: String) in gateway.baseURL.appendingPathComponent(path) }

                // Every household-scoped route, aimed at a household: (method, path, body).
                func routes(_ household: String, owner: GatewayUser) -> [(String, String, [String: Any]?)] {
                    [
                        ("GET", "v1/households/\(household)", nil),
                        ("GET", "v1/households/by_user/\(owner.userId)", nil),
                        ("POST", "v1/households/upsert", ["household_id": household, "prefs": ["adults": 1]]),
                        ("POST", "v1/households/\(household)/members", ["name": "Intruder", "role": "coach"]),
                        ("POST", "v1/households/\(household)/invites", [:]),
                    ]
                }
                func call(_ route: (String, String, [String: Any]?), as user: GatewayUser?) async throws -> HTTPTestClient.Reply {
                    let headers = user?.headers ?? [:]
                    if let body = route.2 { return try await HTTPTestClient.postJSON(url(route.1), body, headers: headers) }
                    return try await HTTPTestClient.send(route.0, url(route.1), headers: headers)
                }

                for route in routes(bobHousehold, owner: bob) {
                    let reply = try await call(route, as: alice)
                    #expect(reply.status == 404, "alice → \(route.0) \(route.1): \(reply.status)")
                    #expect(reply.errorCode == "not_found", "\(route.1)")
                }
                for route in routes(aliceHousehold, owner: alice) {
                    let reply = try await call(route, as: bob)
                    #expect(reply.status == 404, "bob → \(route.0) \(route.1): \(reply.status)")
                }
                for route in routes(aliceHousehold, owner: alice) {
                    let reply = try await call(route, as: alice)
                    #expect((200..<300).contains(reply.status), "alice → own \(route.0) \(route.1): \(reply.status)")
                }
                for route in routes(aliceHousehold, owner: alice) {
                    let reply = try await call(route, as: nil)
                    #expect(reply.status == 401, "anonymous → \(route.0) \(route.1): \(reply.status)")
                }
                let unknown = try await HTTPTestClient.send("GET", url("v1/households/\(UUID())"), headers: alice.headers)
                #expect(unknown.status == 404)
                let unknownInvite = try await HTTPTestClient.send("POST", url("v1/invites/ABCDEFGHJKMN/accept"), headers: alice.headers)
                #expect(unknownInvite.status == 404)

                // Admin routes: 401 without a token, 403 for ordinary users, 200 for admins.
                let admin = try await GatewayUser.signIn(gateway, name: adminName)
                for path in ["v1/admin/users", "v1/admin/routes"] {
                    #expect(try await HTTPTestClient.send("GET", url(path)).status == 401, "\(path)")
                    let forbidden = try await HTTPTestClient.send("GET", url(path), headers: alice.headers)
                    #expect(forbidden.status == 403, "\(path)")
                    #expect(forbidden.errorCode == "forbidden", "\(path)")
                    #expect(try await HTTPTestClient.send("GET", url(path), headers: admin.headers).status == 200, "\(path)")
                }
                let query = { (text: String) in URL(string: text, relativeTo: gateway.baseURL)! }
                let page = try await HTTPTestClient.send("GET", query("v1/admin/users?limit=500"), headers: admin.headers)
                let listed = (page.json["users"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
                #expect(listed.contains(alice.userId) && listed.contains(bob.userId))
                let badLimit = try await HTTPTestClient.send("GET", query("v1/admin/users?limit=0"), headers: admin.headers)
                #expect(badLimit.errorField == "limit")
            }
        }

        @Test func invitesMembersProfilesAndFeedback() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let url = { (path: String) in gateway.baseURL.appendingPathComponent(path) }
                let (alice, household) = try await GatewayUser.withHousehold(gateway, name: "The Adeyemis")

                // Members: ages come from birthdates, worked out on the day they are read.
                let today = CalendarDay.today
                let birthdate = CalendarDay(year: today.year - 7, month: 1, day: 1)!.isoDate
                let child = try await HTTPTestClient.postJSON(
                    url("v1/households/\(household)/members"), ["name": "Tobi", "role": "child", "birthdate": birthdate], headers: alice.headers)
                #expect(child.status == 201)
                #expect(child.json["age"] as? Int == 7)
                let parent = try await HTTPTestClient.postJSON(
                    url("v1/households/\(household)/members"), ["name": "Alice", "role": "parent"], headers: alice.headers)
                #expect(parent.status == 201)
                let position = try #require(parent.json["position"] as? String)
                let invalid: [([String: Any], String)] = [
                    (["name": "X", "role": "butler"], "role"),
                    (["name": "X", "role": "child", "birthdate": "\(today.year + 1)-01-01"], "birthdate"),
                    (["name": "X", "role": "child", "birthdate": "01/02/2020"], "birthdate"),
                    (["name": " ", "role": "child"], "name"),
                    (["role": "child"], "name"),
                    (["name": "X", "role": 3], "role"),
                ]
                for (body, field) in invalid {
                    let reply = try await HTTPTestClient.postJSON(url("v1/households/\(household)/members"), body, headers: alice.headers)
                    #expect(reply.status == 400, "\(body)")
                    #expect(reply.errorField == field, "\(body): \(String(describing: reply.errorField))")
                }
                let read = try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: alice.headers(["X-Consistency-Token": position]))
                let members = read.json["members"] as? [[String: Any]] ?? []
                #expect(members.map { $0["name"] as? String } == ["Tobi", "Alice"])
                #expect(members.first?["age"] as? Int == 7)
                #expect(members.last?["age"] == nil)

                // Invites: bob joins alice's household beside his own, at once allowed in.
                let (bob, bobHousehold) = try await GatewayUser.withHousehold(gateway, name: "Bob's")
                let invite = try await HTTPTestClient.send("POST", url("v1/households/\(household)/invites"), headers: alice.headers)
                #expect(invite.status == 201)
                let code = try #require(invite.json["code"] as? String)
                let typed = code.lowercased().prefix(4) + "-" + code.lowercased().dropFirst(4)
                let accepted = try await HTTPTestClient.send("POST", url("v1/invites/\(typed)/accept"), headers: bob.headers)
                #expect(accepted.status == 200, "\(String(decoding: accepted.body, as: UTF8.self))")
                #expect(accepted.json["household_id"] as? String == household)
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: bob.headers).status == 200)
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(bobHousehold)"), headers: bob.headers).status == 200)
                let ambiguous = try await HTTPTestClient.send("GET", url("v1/households/by_user/\(alice.userId)"), headers: bob.headers)
                #expect(ambiguous.status == 400 && ambiguous.errorField == "X-Hearth-Household")
                let viaUser = try await HTTPTestClient.send(
                    "GET", url("v1/households/by_user/\(alice.userId)"), headers: bob.headers(["X-Hearth-Household": household]))
                #expect(viaUser.status == 200)
                #expect(viaUser.json["household_id"] as? String == household)
                let carol = try await GatewayUser.signIn(gateway)
                let reused = try await HTTPTestClient.send("POST", url("v1/invites/\(code)/accept"), headers: carol.headers)
                #expect(reused.status == 409)
                #expect(reused.errorCode == "invite_used")

                // Profile: validated, then readable with the token the write answered.
                let badZone = try await HTTPTestClient.postJSON(url("v1/users/upsert"), ["time_zone": "Mars/Olympus_Mons"], headers: bob.headers)
                #expect(badZone.status == 400)
                #expect(badZone.errorField == "time_zone")
                let empty = try await HTTPTestClient.postJSON(url("v1/users/upsert"), ["unknown": 1], headers: bob.headers)
                #expect(empty.status == 400)
                let profile = try await HTTPTestClient.postJSON(
                    url("v1/users/upsert"), ["display_name": "Bob", "locale": "en_GB", "time_zone": "Europe/London"], headers: bob.headers)
                #expect(profile.status == 200)
                let profilePosition = try #require(profile.json["position"] as? String)
                let me = try await HTTPTestClient.send("GET", url("v1/me"), headers: bob.headers(["X-Consistency-Token": profilePosition]))
                #expect(me.json["display_name"] as? String == "Bob")
                #expect(me.json["locale"] as? String == "en-GB")
                #expect(me.json["time_zone"] as? String == "Europe/London")
                // Two households: none is "the" household without the header; both are listed.
                #expect(me.json["household_id"] == nil)
                let memberships = me.json["memberships"] as? [[String: Any]] ?? []
                #expect(Set(memberships.compactMap { $0["household_id"] as? String }) == [household, bobHousehold])
                #expect(memberships.first { $0["household_id"] as? String == household }?["role"] as? String == "adult")
                #expect(memberships.first { $0["household_id"] as? String == bobHousehold }?["role"] as? String == "owner")
                let meThere = try await HTTPTestClient.send("GET", url("v1/me"), headers: bob.headers(["X-Hearth-Household": household]))
                #expect(meThere.json["household_id"] as? String == household)

                // Feedback lands in the feedback read model.
                let runId = "run-\(UUID().uuidString.prefix(8))"
                let feedback = try await HTTPTestClient.postJSON(
                    url("v1/feedback"), ["run_id": runId, "signal": "edit", "comment": "less spicy", "payload": ["dish": "curry", "rating": 3]],
                    headers: bob.headers(["X-Hearth-Household": household]))
                #expect(feedback.status == 202)
                let feedbackId = try #require(feedback.json["feedback_id"] as? String)
                let badSignal = try await HTTPTestClient.postJSON(url("v1/feedback"), ["run_id": runId, "signal": "meh"], headers: bob.headers)
                #expect(badSignal.errorField == "signal")
                // run_id is the event key and an indexed column: 1,500 combining marks (~3 KB) on one
                // character were accepted and then parked by the projections.
                let paddedRun = try await HTTPTestClient.postJSON(
                    url("v1/feedback"), ["run_id": "f" + String(repeating: "\u{0300}", count: 1500), "signal": "up"], headers: bob.headers)
                #expect(paddedRun.status == 400 && paddedRun.errorField == "run_id")
                // A payload near the body limit made the event too large for Kafka: a 500.
                let hugePayload = try await HTTPTestClient.postJSON(
                    url("v1/feedback"), ["run_id": runId, "signal": "up", "payload": String(repeating: "a", count: 600_000)], headers: bob.headers)
                #expect(hugePayload.status == 400 && hugePayload.errorField == "payload")
                let numericRun = try await HTTPTestClient.postJSON(url("v1/feedback"), ["run_id": 42, "signal": "up"], headers: bob.headers)
                #expect(numericRun.status == 202)
                try await TestEnvironment.withPostgres { client in
                    let stored = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                        let rows = try await client.query(
                            "SELECT signal, comment, payload->>'dish', household_id::text FROM feedback WHERE feedback_id = \(UUID(uuidString: feedbackId)!)",
                            logger: TestEnvironment.logger)
                        for try await (signal, comment, dish, householdId) in rows.decode((String, String?, String?, String?).self) {
                            return signal == "edit" && comment == "less spicy" && dish == "curry" && householdId == household
                        }
                        return false
                    }
                    #expect(stored)
                }
            }
        }
    }
}

extension BackboneSuite {
    /// A household's member cap holds under adds that race: counted and added under the
    /// household's lock.
    @Suite struct MemberCap {
        @Test func racingAddsNeverPassTheCap() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let (alice, household) = try await GatewayUser.withHousehold(gateway, name: "The Many")
                let members = gateway.baseURL.appendingPathComponent("v1/households/\(household)/members")
                let cap = HouseholdMemberRules.maxMembers
                for index in 0..<(cap - 3) {
                    let added = try await HTTPTestClient.postJSON(members, ["name": "Person \(index)", "role": "parent"], headers: alice.headers)
                    #expect(added.status == 201, "\(added.text)")
                }
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<8 {
                        group.addTask { try await HTTPTestClient.postJSON(members, ["name": "Racer \(index)", "role": "child"], headers: alice.headers).status }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == 201 }.count == 3 && statuses.filter { $0 == 409 }.count == 5, "\(statuses.sorted())")
                let read = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/households/\(household)"), headers: alice.headers)
                #expect((read.json["members"] as? [Any])?.count == cap, "\(read.text)")
            }
        }
    }
}
