import Foundation
import Testing

extension BackboneSuite {
    /// A coach with client households: a roster, chats with each client only, and reads checked
    /// against the scope the owners chose, which changes and ends at once.
    @Suite struct Coaching {
        static func signUpCoach(_ gateway: ServiceProcess, name: String = "Coach \(UUID().uuidString.prefix(6))") async throws -> GatewayUser {
            let reply = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/auth/dev"), ["name": name, "role": "coach"])
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            return GatewayUser(userId: try #require(reply.json["user_id"] as? String), token: try #require(reply.json["jwt"] as? String))
        }

        @Test func aCoachSeesEachClientOnlyWithinItsScopeAndNothingOnceItEnds() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                func url(_ path: String) -> URL { gateway.baseURL.appendingPathComponent(path) }
                func get(_ path: String, as user: GatewayUser, household: String? = nil) async throws -> HTTPTestClient.Reply {
                    let headers = household.map { user.headers(["X-Hearth-Household": $0]) } ?? user.headers
                    return try await HTTPTestClient.send("GET", URL(string: url("v1").absoluteString + "/" + path)!, headers: headers)
                }
                let coachName = "Coach \(UUID().uuidString.prefix(6))"
                let coach = try await Self.signUpCoach(gateway, name: coachName)
                let me = try await get("me", as: coach)
                #expect(me.json["role"] as? String == "coach")
                // The role is chosen once.
                let again = try await HTTPTestClient.postJSON(url("v1/auth/dev"), ["name": coachName, "role": "member"])
                #expect(again.status == 409 && again.errorCode == "role_fixed")
                let (alice, householdA) = try await GatewayUser.withHousehold(gateway, name: "The Ashbys")
                let (bob, householdB) = try await GatewayUser.withHousehold(gateway, name: "The Brennans")
                #expect(try await HTTPTestClient.send("POST", url("v1/coach/clients"), headers: alice.headers).status == 403, "members keep no roster")

                // A prospect, invited, becomes a client when the owner accepts with a scope.
                let prospect = try await HTTPTestClient.postJSON(url("v1/coach/prospects"), ["name": "Alice Ashby", "note": "met at the school fair"], headers: coach.headers)
                #expect(prospect.status == 201, "\(String(decoding: prospect.body, as: UTF8.self))")
                let prospectId = try #require((prospect.json["prospect"] as? [String: Any])?["prospect_id"] as? String)
                let inviteA = try await HTTPTestClient.postJSON(url("v1/coach/clients"), ["prospect_id": prospectId], headers: coach.headers)
                #expect(inviteA.status == 201)
                let codeA = try #require(inviteA.json["code"] as? String)
                let badScope = try await HTTPTestClient.postJSON(
                    url("v1/households/\(householdA)/coaches"), ["code": codeA, "scope": ["calendar": "everything"]], headers: alice.headers)
                #expect(badScope.status == 400 && badScope.errorField == "scope.calendar")
                let acceptedA = try await HTTPTestClient.postJSON(
                    url("v1/households/\(householdA)/coaches"), ["code": codeA, "scope": ["calendar": "read", "profile_kinds": ["allergy"]]],
                    headers: alice.headers)
                #expect(acceptedA.status == 201, "\(String(decoding: acceptedA.body, as: UTF8.self))")
                let reused = try await HTTPTestClient.postJSON(url("v1/households/\(householdB)/coaches"), ["code": codeA], headers: bob.headers)
                #expect(reused.status == 409)
                let inviteB = try await HTTPTestClient.send("POST", url("v1/coach/clients"), headers: coach.headers)
                let codeB = try #require(inviteB.json["code"] as? String)
                #expect(try await HTTPTestClient.postJSON(url("v1/households/\(householdB)/coaches"), ["code": codeB], headers: bob.headers).status == 201)
                let clients = (try await get("coach/clients", as: coach).json["clients"] as? [[String: Any]] ?? []).compactMap { $0["household_id"] as? String }
                #expect(Set(clients) == [householdA, householdB])
                let prospects = try await get("coach/prospects", as: coach).json["prospects"] as? [[String: Any]] ?? []
                #expect(prospects.first?["status"] as? String == "client" && prospects.first?["household_id"] as? String == householdA)

                // A chat with each client; each household sees only its own.
                let chatA = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Sleep plan", "member_ids": [coach.userId]], headers: alice.headers)
                let chatAId = try #require(chatA.json["chat_id"] as? String, "\(String(decoding: chatA.body, as: UTF8.self))")
                let chatB = try await HTTPTestClient.postJSON(
                    url("v1/chats"), ["title": "Meal ideas", "member_ids": [bob.userId]], headers: coach.headers(["X-Hearth-Household": householdB]))
                let chatBId = try #require(chatB.json["chat_id"] as? String, "\(String(decoding: chatB.body, as: UTF8.self))")
                let aliceOnly = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Just us"], headers: alice.headers)
                let aliceOnlyId = try #require(aliceOnly.json["chat_id"] as? String)
                #expect(try await HTTPTestClient.postJSON(
                    url("v1/chats/\(chatAId)/messages"), ["text": "Try a later bedtime", "client_id": "c-1"], headers: coach.headers).status == 201)
                let coachChats = (try await get("chats", as: coach).json["chats"] as? [[String: Any]] ?? []).compactMap { $0["chat_id"] as? String }
                #expect(Set(coachChats) == [chatAId, chatBId])
                #expect(try await get("chats/\(aliceOnlyId)/messages", as: coach).status == 404, "a client's own chat is not the coach's")
                #expect(try await get("chats/\(chatBId)/messages", as: alice).status == 404)
                #expect(try await get("chats/\(chatAId)/messages", as: bob).status == 404)
                #expect(try await get("households/\(householdA)", as: coach).status == 404, "a coach is no member")

                // Reads by scope: A's calendar and allergies; nothing of B's but the chat.
                let window = "calendar/events?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z"
                #expect(try await get(window, as: coach, household: householdA).status == 200)
                #expect(try await get(window, as: coach, household: householdB).status == 404)
                #expect(try await get("households/\(householdA)/profile", as: coach).status == 200)
                #expect(try await get("households/\(householdB)/profile", as: coach).status == 404)
                let adult = try await GatewayUser.signIn(gateway)
                try await Memberships.join(adult, householdA, invitedBy: alice, gateway: gateway)
                let byAdult = try await HTTPTestClient.send(
                    "PUT", url("v1/households/\(householdA)/coaches/\(coach.userId)/scope"),
                    body: try JSONSerialization.data(withJSONObject: ["calendar": "none"]), headers: adult.headers)
                #expect(byAdult.status == 403)
                let narrowed = try await HTTPTestClient.send(
                    "PUT", url("v1/households/\(householdA)/coaches/\(coach.userId)/scope"),
                    body: try JSONSerialization.data(withJSONObject: ["calendar": "none", "profile_kinds": []]), headers: alice.headers)
                #expect(narrowed.status == 200, "\(String(decoding: narrowed.body, as: UTF8.self))")
                #expect(try await get(window, as: coach, household: householdA).status == 404, "the narrower scope applies at once")
                #expect(try await get("households/\(householdA)/profile", as: coach).status == 404)
                let listed = try await get("households/\(householdA)/coaches", as: adult).json["coaches"] as? [[String: Any]] ?? []
                #expect(listed.first?["coach_id"] as? String == coach.userId)

                // Bob ends it: the former coach is refused everything of B at once; A goes on.
                #expect(try await HTTPTestClient.send("DELETE", url("v1/households/\(householdB)/coaches/\(coach.userId)"), headers: bob.headers).status == 200)
                #expect(try await get("chats/\(chatBId)/messages", as: coach).status == 404)
                #expect(try await HTTPTestClient.postJSON(
                    url("v1/chats/\(chatBId)/messages"), ["text": "Still there?", "client_id": "c-2"], headers: coach.headers).status == 404)
                #expect(try await get("chats/\(chatBId)/messages", as: bob).status == 200, "the history stays with the household")
                #expect(try await get("chats/\(chatAId)/messages", as: coach).status == 200)
                // The coach ends A from their side.
                #expect(try await HTTPTestClient.send("DELETE", url("v1/coach/clients/\(householdA)"), headers: coach.headers).status == 200)
                #expect(try await get("chats/\(chatAId)/messages", as: coach).status == 404)
                #expect((try await get("coach/clients", as: coach).json["clients"] as? [Any])?.isEmpty == true)

                // A coach of another household sees none of this.
                let stranger = try await Self.signUpCoach(gateway)
                #expect(try await get("chats/\(chatAId)/messages", as: stranger).status == 404)
                #expect(try await get("households/\(householdA)/profile", as: stranger).status == 404)
                #expect(try await get(window, as: stranger, household: householdA).status == 404)
            }
        }

        /// A coach's group across client households: its members find and message each other
        /// there, nobody outside finds them, and a household whose coaching ends leaves it at once.
        @Test func aCoachsGroupLetsClientsOfDifferentHouseholdsFindAndMessageEachOtherOnly() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                func url(_ path: String) -> URL { gateway.baseURL.appendingPathComponent(path) }
                func get(_ path: String, as who: GatewayUser) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send("GET", url(path), headers: who.headers)
                }
                let coach = try await Self.signUpCoach(gateway)
                var clients: [(GatewayUser, String)] = []
                for name in ["The Greens", "The Browns"] {
                    let (owner, household) = try await GatewayUser.withHousehold(gateway, name: name)
                    let invite = try await HTTPTestClient.send("POST", url("v1/coach/clients"), headers: coach.headers)
                    let code = try #require(invite.json["code"] as? String)
                    #expect(try await HTTPTestClient.postJSON(url("v1/households/\(household)/coaches"), ["code": code], headers: owner.headers).status == 201)
                    clients.append((owner, household))
                }
                let (alice, householdA) = clients[0]
                let (bob, householdB) = clients[1]
                let (carol, _) = try await GatewayUser.withHousehold(gateway, name: "The Outsiders")
                let partner = try await GatewayUser.signIn(gateway)
                try await Memberships.join(partner, householdA, invitedBy: alice, gateway: gateway)

                let refused = try await HTTPTestClient.postJSON(
                    url("v1/coach/groups"), ["title": "Sleep group", "member_ids": [alice.userId, bob.userId, carol.userId]], headers: coach.headers)
                #expect(refused.status == 400 && refused.errorField == "member_ids[2]", "not a client: \(refused.text)")
                #expect(try await HTTPTestClient.postJSON(url("v1/coach/groups"), ["member_ids": [bob.userId]], headers: alice.headers).status == 403)
                let group = try await HTTPTestClient.postJSON(
                    url("v1/coach/groups"), ["title": "Sleep group", "member_ids": [alice.userId, bob.userId]], headers: coach.headers)
                #expect(group.status == 201, "\(group.text)")
                let groupId = try #require(group.json["chat_id"] as? String)

                // The members find each other and the coach; nobody else finds anyone.
                let alicesPeers = (try await get("v1/peers", as: alice).json["peers"] as? [[String: Any]] ?? [])
                #expect(Set(alicesPeers.compactMap { $0["user_id"] as? String }) == [bob.userId, coach.userId], "\(alicesPeers)")
                #expect(alicesPeers.first { $0["user_id"] as? String == coach.userId }?["role"] as? String == "coach")
                #expect((alicesPeers.first { $0["user_id"] as? String == bob.userId }?["chat_ids"] as? [String]) == [groupId])
                for outsider in [carol, partner] {
                    #expect((try await get("v1/peers", as: outsider).json["peers"] as? [Any])?.isEmpty == true)
                    #expect(try await get("v1/chats/\(groupId)/messages", as: outsider).status == 404)
                    #expect(try await HTTPTestClient.postJSON(
                        url("v1/chats/\(groupId)/messages"), ["text": "hello?", "client_id": "x"], headers: outsider.headers).status == 404)
                }

                // Bob writes, Alice reads it and answers; the group is in both chat lists.
                #expect(try await HTTPTestClient.postJSON(
                    url("v1/chats/\(groupId)/messages"), ["text": "Did the 7pm bedtime work for you?", "client_id": "b-1"], headers: bob.headers).status == 201)
                let read = try await ConversationProfile.poll {
                    ((try await get("v1/chats/\(groupId)/messages", as: alice).json["messages"] as? [[String: Any]]) ?? [])
                        .contains { $0["text"] as? String == "Did the 7pm bedtime work for you?" }
                }
                #expect(read)
                #expect(try await HTTPTestClient.postJSON(
                    url("v1/chats/\(groupId)/messages"), ["text": "It did, after three nights", "client_id": "a-1"], headers: alice.headers).status == 201)
                for member in [alice, bob, coach] {
                    let listed = (try await get("v1/chats", as: member).json["chats"] as? [[String: Any]] ?? []).compactMap { $0["chat_id"] as? String }
                    #expect(listed.contains(groupId), "\(member.userId) does not list the group")
                }

                // The Browns stop working with the coach: Bob is out of the group at once, the rest go on.
                #expect(try await HTTPTestClient.send("DELETE", url("v1/households/\(householdB)/coaches/\(coach.userId)"), headers: bob.headers).status == 200)
                #expect(try await get("v1/chats/\(groupId)/messages", as: bob).status == 404)
                #expect((try await get("v1/peers", as: bob).json["peers"] as? [Any])?.isEmpty == true)
                let after = (try await get("v1/peers", as: alice).json["peers"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
                #expect(after == [coach.userId], "\(after)")
                #expect(try await get("v1/chats/\(groupId)/messages", as: coach).status == 200)
                #expect(try await get("v1/chats/\(groupId)/messages", as: alice).status == 200)
                // Coaching again is no way back into the old group (and its history since).
                let again = try await HTTPTestClient.send("POST", url("v1/coach/clients"), headers: coach.headers)
                let againCode = try #require(again.json["code"] as? String)
                #expect(try await HTTPTestClient.postJSON(url("v1/households/\(householdB)/coaches"), ["code": againCode], headers: bob.headers).status == 201)
                #expect(try await get("v1/chats/\(groupId)/messages", as: bob).status == 404, "a new relationship does not reopen the group")
            }
        }
    }
}
