import Foundation
import Testing

extension BackboneSuite {
    /// A user may belong to several households and acts in one at a time; leaving or being
    /// removed ends every access that followed the membership, at once.
    @Suite struct Memberships {
        /// Invites `user` into `household` (created by `owner`) in `role`.
        @discardableResult
        static func join(_ user: GatewayUser, _ household: String, invitedBy owner: GatewayUser, role: String? = nil, gateway: ServiceProcess)
            async throws -> String
        {
            let body: [String: Any] = role.map { ["role": $0] } ?? [:]
            let invite = try await HTTPTestClient.postJSON(
                gateway.baseURL.appendingPathComponent("v1/households/\(household)/invites"), body, headers: owner.headers)
            #expect(invite.status == 201, "\(String(decoding: invite.body, as: UTF8.self))")
            let code = try #require(invite.json["code"] as? String)
            let accepted = try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/invites/\(code)/accept"), headers: user.headers)
            #expect(accepted.status == 200, "\(String(decoding: accepted.body, as: UTF8.self))")
            #expect(accepted.json["role"] as? String == (role ?? "adult"))
            return code
        }

        @Test func oneUserInTwoHouseholdsActsInEachWithTheHeader() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                func url(_ path: String) -> URL { gateway.baseURL.appendingPathComponent(path) }
                let (alice, householdA) = try await GatewayUser.withHousehold(gateway, name: "The Ashbys")
                let (bob, householdB) = try await GatewayUser.withHousehold(gateway, name: "The Brennans")
                let nanny = try await GatewayUser.signIn(gateway)
                try await Self.join(nanny, householdA, invitedBy: alice, role: "caregiver", gateway: gateway)
                try await Self.join(nanny, householdB, invitedBy: bob, gateway: gateway)
                let owner = try await HTTPTestClient.postJSON(url("v1/households/\(householdA)/invites"), ["role": "owner"], headers: alice.headers)
                #expect(owner.status == 400 && owner.errorField == "role")

                let me = try await HTTPTestClient.send("GET", url("v1/me"), headers: nanny.headers)
                let roles = Dictionary(
                    uniqueKeysWithValues: (me.json["memberships"] as? [[String: Any]] ?? []).compactMap { row in
                        (row["household_id"] as? String).map { ($0, row["role"] as? String ?? "") }
                    })
                #expect(roles == [householdA: "caregiver", householdB: "adult"])
                #expect(me.json["household_id"] == nil)

                // Without the header a household route cannot guess: a 400 naming it.
                let unnamed = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Pick-ups"], headers: nanny.headers)
                #expect(unnamed.status == 400 && unnamed.errorField == "X-Hearth-Household", "\(String(decoding: unnamed.body, as: UTF8.self))")
                #expect(unnamed.errorCode == "household_required")
                for household in [householdA, householdB] {
                    let chat = try await HTTPTestClient.postJSON(
                        url("v1/chats"), ["title": "Pick-ups"], headers: nanny.headers(["X-Hearth-Household": household]))
                    #expect(chat.status == 201, "\(String(decoding: chat.body, as: UTF8.self))")
                    #expect(chat.json["household_id"] as? String == household)
                }
                // A household that is not theirs is a 404, a header that is not an id a 400.
                let foreign = try await HTTPTestClient.postJSON(
                    url("v1/chats"), ["title": "x"], headers: nanny.headers(["X-Hearth-Household": UUID().uuidString]))
                #expect(foreign.status == 404)
                let garbled = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "x"], headers: nanny.headers(["X-Hearth-Household": "the-ashbys"]))
                #expect(garbled.status == 400 && garbled.errorField == "X-Hearth-Household")
                // Each household's own users only see their own household's chat.
                let aliceChats = try await HTTPTestClient.send("GET", url("v1/households/\(householdB)"), headers: alice.headers)
                #expect(aliceChats.status == 404)
                // Alice, in one household, needs no header.
                #expect(try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Alone"], headers: alice.headers).status == 201)
                // A caregiver invites nobody; an adult does.
                #expect(try await HTTPTestClient.send("POST", url("v1/households/\(householdA)/invites"), headers: nanny.headers).status == 403)
                #expect(try await HTTPTestClient.send("POST", url("v1/households/\(householdB)/invites"), headers: nanny.headers).status == 201)
            }
        }

        @Test func leavingAndRemovalEndAccessAtOnceAndAHouseholdKeepsAnOwner() async throws {
            try await ServiceProcess.with("gateway", environment: ["HEARTH_CHAT_STREAM_HEARTBEAT_S": "1"]) { gateway in
                func url(_ path: String) -> URL { gateway.baseURL.appendingPathComponent(path) }
                let (alice, household) = try await GatewayUser.withHousehold(gateway, name: "The Leavers")
                let ben = try await GatewayUser.signIn(gateway)
                let carol = try await GatewayUser.signIn(gateway)
                let bensCode = try await Self.join(ben, household, invitedBy: alice, gateway: gateway)
                try await Self.join(carol, household, invitedBy: alice, gateway: gateway)

                let created = try await HTTPTestClient.postJSON(
                    url("v1/chats"), ["title": "Us", "member_ids": [ben.userId, carol.userId]], headers: alice.headers)
                let chatId = try #require(created.json["chat_id"] as? String, "\(String(decoding: created.body, as: UTF8.self))")
                let first = try await HTTPTestClient.postJSON(url("v1/chats/\(chatId)/messages"), ["text": "hello", "client_id": "b-1"], headers: ben.headers)
                #expect(first.status == 201)
                let feed = try await HTTPTestClient.send("POST", url("v1/calendar/feeds"), headers: carol.headers)
                let feedPath = try #require(feed.json["path"] as? String, "\(String(decoding: feed.body, as: UTF8.self))")
                let feedURL = try #require(URL(string: feedPath, relativeTo: gateway.baseURL))
                #expect(try await HTTPTestClient.send("GET", feedURL).status == 200)

                let stream = NotificationStreamReader()
                stream.start(url("v1/chats/\(chatId)/stream"), headers: ben.headers)
                defer { Task { await stream.stop() } }
                #expect(await KafkaTestEnvironment.eventually { stream.connected }, "ben's stream opened")

                // Ben leaves: the chat, its stream and the household are gone for him at once.
                let left = try await HTTPTestClient.send("POST", url("v1/households/\(household)/leave"), headers: ben.headers)
                #expect(left.status == 200, "\(String(decoding: left.body, as: UTF8.self))")
                #expect(left.json["role"] == nil || left.json["role"] is NSNull)
                #expect(try await HTTPTestClient.send("GET", url("v1/chats/\(chatId)/messages"), headers: ben.headers).status == 404)
                let posted = try await HTTPTestClient.postJSON(url("v1/chats/\(chatId)/messages"), ["text": "still here?", "client_id": "b-2"], headers: ben.headers)
                #expect(posted.status == 404)
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: ben.headers).status == 404)
                #expect(await KafkaTestEnvironment.eventually { stream.events.contains { $0.name == "closed" } }, "the open stream closed")
                #expect(try await HTTPTestClient.send("POST", url("v1/households/\(household)/leave"), headers: ben.headers).status == 404)
                // The invite he came in with is spent: no way back but a new one.
                let again = try await HTTPTestClient.send("POST", url("v1/invites/\(bensCode)/accept"), headers: ben.headers)
                #expect(again.status == 409 && again.errorCode == "invite_used")
                // An invite Carol makes now is no way back for her once she is gone.
                let carolsInvite = try await HTTPTestClient.send("POST", url("v1/households/\(household)/invites"), headers: carol.headers)
                let ownCode = try #require(carolsInvite.json["code"] as? String)

                // Only owners remove; a non-member sees no household; the owner cannot remove themself.
                let byAdult = try await HTTPTestClient.send("DELETE", url("v1/households/\(household)/members/\(alice.userId)"), headers: carol.headers)
                #expect(byAdult.status == 403 && byAdult.errorCode == "owner_required")
                #expect(try await HTTPTestClient.send("DELETE", url("v1/households/\(household)/members/\(carol.userId)"), headers: ben.headers).status == 404)
                #expect(try await HTTPTestClient.send("DELETE", url("v1/households/\(household)/members/\(ben.userId)"), headers: alice.headers).status == 404)
                let selfRemoval = try await HTTPTestClient.send("DELETE", url("v1/households/\(household)/members/\(alice.userId)"), headers: alice.headers)
                #expect(selfRemoval.status == 409)

                // The last owner cannot leave, nor stop being an owner.
                let lastOwner = try await HTTPTestClient.send("POST", url("v1/households/\(household)/leave"), headers: alice.headers)
                #expect(lastOwner.status == 409 && lastOwner.errorCode == "last_owner")
                let demoted = try await HTTPTestClient.send(
                    "PUT", url("v1/households/\(household)/members/\(alice.userId)/role"),
                    body: try JSONSerialization.data(withJSONObject: ["role": "adult"]), headers: alice.headers)
                #expect(demoted.status == 409 && demoted.errorCode == "last_owner")
                let badRole = try await HTTPTestClient.send(
                    "PUT", url("v1/households/\(household)/members/\(carol.userId)/role"),
                    body: try JSONSerialization.data(withJSONObject: ["role": "queen"]), headers: alice.headers)
                #expect(badRole.status == 400 && badRole.errorField == "role")

                // Carol is removed by the owner: her chat and her calendar feed end with it.
                let removed = try await HTTPTestClient.send("DELETE", url("v1/households/\(household)/members/\(carol.userId)"), headers: alice.headers)
                #expect(removed.status == 200, "\(String(decoding: removed.body, as: UTF8.self))")
                #expect(try await HTTPTestClient.send("GET", url("v1/chats/\(chatId)/messages"), headers: carol.headers).status == 404)
                #expect(try await HTTPTestClient.send("GET", feedURL).status == 404)
                #expect(try await HTTPTestClient.send("POST", url("v1/invites/\(ownCode)/accept"), headers: carol.headers).errorCode == "own_invite")
                // Upserting afterwards makes Carol a household of her own, never a way back in.
                let own = try await HTTPTestClient.postJSON(url("v1/households/upsert"), ["name": "Carol's", "prefs": ["adults": 1]], headers: carol.headers)
                #expect(own.status == 200)
                #expect(own.json["household_id"] as? String != household)
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: carol.headers).status == 404)

                // Made an owner, Ben — back through a new invite — lets Alice leave.
                try await Self.join(ben, household, invitedBy: alice, gateway: gateway)
                let promoted = try await HTTPTestClient.send(
                    "PUT", url("v1/households/\(household)/members/\(ben.userId)/role"),
                    body: try JSONSerialization.data(withJSONObject: ["role": "owner"]), headers: alice.headers)
                #expect(promoted.status == 200 && promoted.json["role"] as? String == "owner")
                #expect(try await HTTPTestClient.send("POST", url("v1/households/\(household)/leave"), headers: alice.headers).status == 200)
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: ben.headers).status == 200)
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: alice.headers).status == 404)
                // Alice made this household; an upsert now makes her a new one, not a way back.
                let fresh = try await HTTPTestClient.postJSON(url("v1/households/upsert"), ["name": "Alice's", "prefs": ["adults": 1]], headers: alice.headers)
                #expect(fresh.status == 200)
                let freshId = try #require(fresh.json["household_id"] as? String)
                #expect(freshId != household)
                let secondUpsert = try await HTTPTestClient.postJSON(
                    url("v1/households/upsert"), ["name": "Alice's", "prefs": ["adults": 2]], headers: alice.headers)
                #expect(secondUpsert.json["household_id"] as? String == freshId, "a second upsert names the same new household")
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: alice.headers).status == 404)
                #expect(try await HTTPTestClient.send("GET", url("v1/households/\(freshId)"), headers: alice.headers).status == 200)

                // Two owners leaving at the same instant: the check is serialized, one stays.
                try await Self.join(ben, freshId, invitedBy: alice, gateway: gateway)
                let coOwner = try await HTTPTestClient.send(
                    "PUT", url("v1/households/\(freshId)/members/\(ben.userId)/role"),
                    body: try JSONSerialization.data(withJSONObject: ["role": "owner"]), headers: alice.headers)
                #expect(coOwner.status == 200)
                let leaving = url("v1/households/\(freshId)/leave")
                let race = try await withThrowingTaskGroup(of: HTTPTestClient.Reply.self) { group in
                    for owner in [alice, ben] { group.addTask { try await HTTPTestClient.send("POST", leaving, headers: owner.headers) } }
                    return try await group.reduce(into: [HTTPTestClient.Reply]()) { $0.append($1) }
                }
                #expect(race.map(\.status).sorted() == [200, 409], "\(race.map(\.status))")
                #expect(race.contains { $0.errorCode == "last_owner" })
                var stayed = 0
                for owner in [alice, ben] where try await HTTPTestClient.send("GET", url("v1/households/\(freshId)"), headers: owner.headers).status == 200 {
                    stayed += 1
                }
                #expect(stayed == 1, "exactly one owner is left")
            }
        }
    }
}

extension BackboneSuite {
    /// The notifier follows membership too: a household's reminders stop for someone who left it.
    @Suite struct MembershipReminders {
        @Test func leavingCancelsTheHouseholdsPendingRemindersOfWhoLeftAndOnlyThose() async throws {
            try await NotifierStack.with { stack, _ in
                let gateway = stack.gateway
                let (alice, household) = try await GatewayUser.withHousehold(gateway, name: "The Remembered")
                let ben = try await GatewayUser.signIn(gateway)
                try await Memberships.join(ben, household, invitedBy: alice, gateway: gateway)
                let bens = try await stack.postReminder(ben, title: "Bins out", at: Date().addingTimeInterval(3600))
                let alices = try await stack.postReminder(alice, title: "Bins out too", at: Date().addingTimeInterval(3600))
                @Sendable func status(_ id: UUID) async throws -> String? {
                    try await TestEnvironment.withPostgres { client in
                        let rows = try await client.query("SELECT status FROM reminders WHERE reminder_id = \(id)", logger: TestEnvironment.logger)
                        for try await status in rows.decode(String.self) { return status }
                        return nil
                    }
                }
                let bothPending = await KafkaTestEnvironment.eventually {
                    let ben = try? await status(bens)
                    let alice = try? await status(alices)
                    return ben == "pending" && alice == "pending"
                }
                #expect(bothPending)
                let left = try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/households/\(household)/leave"), headers: ben.headers)
                #expect(left.status == 200)
                let cancelled = await KafkaTestEnvironment.eventually {
                    let ben = try? await status(bens)
                    return ben == "cancelled"
                }
                #expect(cancelled, "the leaver's reminder of the household stops")
                let others = try await status(alices)
                #expect(others == "pending", "the others' stay")
            }
        }
    }
}
