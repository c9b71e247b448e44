import Foundation
import PostgresNIO
import Testing

extension BackboneSuite {
    /// Chats → profile-extractor → household profile → meal planning, end to end over the real
    /// services, Postgres and the dev broker.
    @Suite struct ConversationProfile {
        struct Chat {
            let gateway: ServiceProcess
            let user: GatewayUser
            let chatId: String

            func send(_ text: String, clientId: String, as sender: GatewayUser? = nil) async throws -> HTTPTestClient.Reply {
                try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/messages"), ["text": text, "client_id": clientId],
                    headers: (sender ?? user).headers)
            }
        }

        static func profile(_ gateway: ServiceProcess, _ user: GatewayUser, household: String) async throws -> [String: Any] {
            let reply = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/households/\(household)/profile"), headers: user.headers)
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            return reply.json
        }

        /// Polls until `condition` holds (at most 30 s); the closure may read the test's state,
        /// which `KafkaTestEnvironment.eventually` (Sendable) cannot.
        static func poll(_ condition: () async throws -> Bool) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if try await condition() { return true }
                try await Task.sleep(for: .milliseconds(200))
            }
            return false
        }

        /// Adds a child to the household and waits until the profile-extractor knows them: it must,
        /// before it reads a message about them.
        static func addChildKnownToTheExtractor(
            _ gateway: ServiceProcess, user: GatewayUser, household: String, name: String, birthdate: String
        ) async throws {
            let added = try await HTTPTestClient.postJSON(
                gateway.baseURL.appendingPathComponent("v1/households/\(household)/members"),
                ["name": name, "role": "child", "birthdate": birthdate], headers: user.headers)
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            let householdId = try #require(UUID(uuidString: household))
            let known = try await poll {
                try await TestEnvironment.withPostgres { client in
                    let rows = try await client.query(
                        "SELECT count(*)::int8 FROM profile_subjects WHERE household_id = \(householdId) AND name = \(name)",
                        logger: TestEnvironment.logger)
                    for try await count in rows.decode(Int64.self) { return count == 1 }
                    return false
                }
            }
            #expect(known, "the profile-extractor never learned of \(name)")
        }

        static func facts(_ profile: [String: Any]) -> [[String: Any]] { profile["facts"] as? [[String: Any]] ?? [] }
        static func constraintValues(_ profile: [String: Any]) -> [String] {
            (profile["constraints"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
        }

        static func mealPlanAllergies(_ gateway: ServiceProcess, _ user: GatewayUser) async throws -> (declared: [String], served: [[String]]) {
            let (events, _) = try await AssistStack.run(
                gateway, user: user, ["goal": "Dinners for the week", "mode": "meals", "days": 7, "start_date": "2026-03-02"], wire: .ndjson)
            let terminals = try expectWellFormedStream(events, terminal: "final", wire: .ndjson)
            let declared = (events[0].object["prefs"] as? [String: Any])?["allergies"] as? [String] ?? []
            let days = terminals[0].object["days"] as? [[String: Any]] ?? []
            #expect(days.count == 7)
            return (declared, days.map { (($0["recipe"] as? [String: Any])?["allergens"] as? [String]) ?? ["?"] })
        }

        @Test func anAllergyInAChatConstrainsMealsAtOnceAndItsRemovalOnlyOnceConfirmed() async throws {
            try await ServiceProcess.with("profile-extractor") { _ in
                try await AssistStack.with { gateway, _ in
                    let (user, household) = try await GatewayUser.withHousehold(gateway, name: "The Sesame Family")
                    try await Self.addChildKnownToTheExtractor(gateway, user: user, household: household, name: "Sam", birthdate: "2018-05-04")

                    let created = try await HTTPTestClient.postJSON(
                        gateway.baseURL.appendingPathComponent("v1/chats"), ["title": "Family"], headers: user.headers)
                    #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
                    let chat = Chat(gateway: gateway, user: user, chatId: try #require(created.json["chat_id"] as? String))

                    let sent = try await chat.send("Sam is allergic to sesame", clientId: "msg-1")
                    #expect(sent.status == 201)
                    let messageId = try #require((sent.json["message"] as? [String: Any])?["message_id"] as? String)

                    // The fact arrives with the message as its source and constrains planning at once.
                    var profile: [String: Any] = [:]
                    let extracted = try await Self.poll {
                        profile = try await Self.profile(gateway, user, household: household)
                        return Self.constraintValues(profile).contains("sesame")
                    }
                    #expect(extracted, "no sesame constraint: \(profile)")
                    let fact = try #require(Self.facts(profile).first { $0["kind"] as? String == "allergy" && $0["value"] as? String == "sesame" })
                    #expect(fact["subject"] as? String == "Sam")
                    #expect(fact["polarity"] as? String == "add")
                    #expect(fact["status"] as? String == "proposed")
                    #expect(fact["member_id"] is String)
                    let source = try #require(fact["source"] as? [String: Any])
                    #expect(source["message_id"] as? String == messageId)
                    #expect(source["chat_id"] as? String == chat.chatId)
                    #expect(source["quoted_span"] as? String == "Sam is allergic to sesame")

                    let first = try await Self.mealPlanAllergies(gateway, user)
                    #expect(first.declared.contains("sesame"))
                    for allergens in first.served { #expect(!allergens.contains("sesame") && !allergens.contains("?"), "\(allergens)") }

                    // A removal is proposed and changes nothing until a parent confirms it.
                    let removal = try await chat.send("Sam isn't allergic to sesame any more", clientId: "msg-2")
                    #expect(removal.status == 201)
                    var removalFact: [String: Any]?
                    let proposed = try await Self.poll {
                        profile = try await Self.profile(gateway, user, household: household)
                        removalFact = Self.facts(profile).first { $0["polarity"] as? String == "remove" && $0["value"] as? String == "sesame" }
                        return removalFact != nil
                    }
                    #expect(proposed, "no proposed removal: \(profile)")
                    #expect(removalFact?["status"] as? String == "proposed")
                    #expect(Self.constraintValues(profile).contains("sesame"))
                    let second = try await Self.mealPlanAllergies(gateway, user)
                    #expect(second.declared.contains("sesame"), "an unconfirmed removal lifted the constraint")

                    let removalId = try #require(removalFact?["fact_id"] as? String)
                    let confirmed = try await HTTPTestClient.send(
                        "POST", gateway.baseURL.appendingPathComponent("v1/profile/facts/\(removalId)/confirm"), headers: user.headers)
                    #expect(confirmed.status == 200, "\(String(decoding: confirmed.body, as: UTF8.self))")
                    let lifted = try await Self.poll {
                        !Self.constraintValues(try await Self.profile(gateway, user, household: household)).contains("sesame")
                    }
                    #expect(lifted)
                    let third = try await Self.mealPlanAllergies(gateway, user)
                    #expect(!third.declared.contains("sesame"))
                    let again = try await HTTPTestClient.send(
                        "POST", gateway.baseURL.appendingPathComponent("v1/profile/facts/\(removalId)/confirm"), headers: user.headers)
                    #expect(again.status == 409)
                }
            }
        }

        /// "Noor is allergic to peanuts" with no Noor in the household: kept as proposed under the
        /// name, constraining nothing; every user of the household is asked in their inbox; linked
        /// to the member added for her, the allergy constrains at once.
        @Test func aFactAboutSomeoneNotInTheHouseholdWaitsToBeLinkedAndAsksTheHousehold() async throws {
            try await ServiceProcess.with("profile-extractor") { _ in
                try await NotifierStack.with { stack, _ in
                    let gateway = stack.gateway
                    func url(_ path: String) -> URL { gateway.baseURL.appendingPathComponent(path) }
                    let (user, household) = try await GatewayUser.withHousehold(gateway, name: "The Linkers")
                    let partner = try await GatewayUser.signIn(gateway)
                    try await Memberships.join(partner, household, invitedBy: user, gateway: gateway)
                    let householdId = try #require(UUID(uuidString: household))
                    let bothKnown = try await Self.poll {
                        try await TestEnvironment.withPostgres { client in
                            let rows = try await client.query(
                                "SELECT count(*)::int8 FROM profile_household_users WHERE household_id = \(householdId)", logger: TestEnvironment.logger)
                            for try await count in rows.decode(Int64.self) { return count == 2 }
                            return false
                        }
                    }
                    #expect(bothKnown, "the profile-extractor never learned who uses the household")
                    let created = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Party", "member_ids": [partner.userId]], headers: user.headers)
                    let chat = Chat(gateway: gateway, user: user, chatId: try #require(created.json["chat_id"] as? String))
                    #expect(try await chat.send("Noor is allergic to peanuts, she's coming on Saturday", clientId: "noor-1").status == 201)

                    var profile: [String: Any] = [:]
                    var fact: [String: Any]?
                    let kept = try await Self.poll {
                        profile = try await Self.profile(gateway, user, household: household)
                        fact = Self.facts(profile).first { $0["subject"] as? String == "Noor" }
                        return fact != nil
                    }
                    #expect(kept, "the fact was dropped: \(profile)")
                    #expect(fact?["unknown_subject"] as? Bool == true && fact?["member_id"] == nil && fact?["value"] as? String == "peanut", "\(fact ?? [:])")
                    #expect(fact?["status"] as? String == "proposed")
                    #expect(!Self.constraintValues(profile).contains("peanut"), "an unknown subject constrains nothing")
                    let factId = try #require(fact?["fact_id"] as? String)
                    let early = try await HTTPTestClient.send("POST", url("v1/profile/facts/\(factId)/confirm"), headers: user.headers)
                    #expect(early.status == 409 && early.errorCode == "link_first")

                    // Both users of the household are asked, once each.
                    for asked in [user, partner] {
                        let inboxed = try await Self.poll {
                            let inbox = try await HTTPTestClient.send("GET", url("v1/notifications"), headers: asked.headers)
                            return (inbox.json["notifications"] as? [[String: Any]] ?? []).filter { $0["title"] as? String == "Who is Noor?" }.count == 1
                        }
                        #expect(inboxed, "\(asked.userId) was not asked")
                    }

                    // Bad links name the field; strangers learn nothing.
                    let (stranger, _) = try await GatewayUser.withHousehold(gateway, name: "Strangers")
                    #expect(try await HTTPTestClient.postJSON(url("v1/profile/facts/\(factId)/link"), ["member_id": UUID().uuidString], headers: stranger.headers).status == 404)
                    let notAMember = try await HTTPTestClient.postJSON(url("v1/profile/facts/\(factId)/link"), ["member_id": UUID().uuidString], headers: user.headers)
                    #expect(notAMember.status == 400 && notAMember.errorField == "member_id")
                    let garbled = try await HTTPTestClient.postJSON(url("v1/profile/facts/\(factId)/link"), ["member_id": "noor"], headers: user.headers)
                    #expect(garbled.status == 400 && garbled.errorField == "member_id")

                    // Noor is added, and the partner links the fact to her: the allergy constrains at once.
                    let added = try await HTTPTestClient.postJSON(
                        url("v1/households/\(household)/members"), ["name": "Noor Haddad", "role": "child", "birthdate": "2019-02-03"], headers: user.headers)
                    let noor = try #require(added.json["member_id"] as? String, "\(added.text)")
                    let linked = try await HTTPTestClient.postJSON(
                        url("v1/profile/facts/\(factId)/link"), ["member_id": noor],
                        headers: partner.headers(["X-Consistency-Token": try #require(added.json["position"] as? String)]))
                    #expect(linked.status == 200 && linked.json["subject"] as? String == "Noor Haddad", "\(linked.text)")
                    profile = try await Self.profile(gateway, user, household: household)
                    let constraint = (profile["constraints"] as? [[String: Any]] ?? []).first { $0["value"] as? String == "peanut" }
                    #expect(constraint?["subject"] as? String == "Noor Haddad" && constraint?["source_fact_id"] as? String == factId, "\(profile)")
                    let now = Self.facts(profile).first { $0["fact_id"] as? String == factId }
                    #expect(now?["member_id"] as? String == noor && now?["unknown_subject"] as? Bool == false, "\(now ?? [:])")
                    let twice = try await HTTPTestClient.postJSON(url("v1/profile/facts/\(factId)/link"), ["member_id": noor], headers: user.headers)
                    #expect(twice.status == 409 && twice.errorCode == "already_linked")
                    #expect(try await HTTPTestClient.send("POST", url("v1/profile/facts/\(factId)/confirm"), headers: user.headers).status == 200)
                }
            }
        }

        @Test func retriedSendsAreStoredOnceAndNonMembersSeeNothing() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let (user, _) = try await GatewayUser.withHousehold(gateway, name: "The Retriers")
                let created = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/chats"), [:], headers: user.headers)
                #expect(created.status == 201)
                let chat = Chat(gateway: gateway, user: user, chatId: try #require(created.json["chat_id"] as? String))

                let first = try await chat.send("Back at six", clientId: "retry-1")
                let retry = try await chat.send("Back at six", clientId: "retry-1")
                #expect(first.status == 201)
                let firstId = (first.json["message"] as? [String: Any])?["message_id"] as? String
                #expect(firstId != nil)
                // The retry names the same message, whether or not the first was projected yet.
                #expect([200, 201].contains(retry.status))
                #expect((retry.json["message"] as? [String: Any])?["message_id"] as? String == firstId)
                let other = try await chat.send("Dinner is ready", clientId: "retry-2")
                #expect(other.status == 201)

                var messages: [[String: Any]] = []
                let listed = try await Self.poll {
                    let page = try await HTTPTestClient.send(
                        "GET", gateway.baseURL.appendingPathComponent("v1/chats/\(chat.chatId)/messages"), headers: user.headers)
                    messages = page.json["messages"] as? [[String: Any]] ?? []
                    return messages.count >= 2
                }
                #expect(listed)
                #expect(messages.compactMap { $0["text"] as? String } == ["Dinner is ready", "Back at six"], "newest first, once each")
                let late = try await chat.send("Back at six", clientId: "retry-1")
                #expect(late.status == 200)
                #expect(late.json["duplicate"] as? Bool == true)

                let olderURL = gateway.baseURL.appendingPathComponent("v1/chats/\(chat.chatId)/messages")
                let newestId = try #require(messages.first?["message_id"] as? String)
                var components = URLComponents(url: olderURL, resolvingAgainstBaseURL: false)!
                components.queryItems = [URLQueryItem(name: "before", value: newestId), URLQueryItem(name: "limit", value: "10")]
                let older = try await HTTPTestClient.send("GET", components.url!, headers: user.headers)
                #expect(((older.json["messages"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String } == ["Back at six"])

                let read = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/chats/\(chat.chatId)/read"), ["up_to": newestId], headers: user.headers)
                #expect(read.status == 200, "\(String(decoding: read.body, as: UTF8.self))")

                let (stranger, strangerHousehold) = try await GatewayUser.withHousehold(gateway, name: "The Neighbours")
                let peek = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/chats/\(chat.chatId)/messages"), headers: stranger.headers)
                #expect(peek.status == 404)
                let write = try await chat.send("hello?", clientId: "x", as: stranger)
                #expect(write.status == 404)
                let markRead = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/chats/\(chat.chatId)/read"), ["up_to": newestId], headers: stranger.headers)
                #expect(markRead.status == 404)
                let invited = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/chats"), ["member_ids": [user.userId]], headers: stranger.headers)
                #expect(invited.status == 400, "a chat may only include the creator's household")
                #expect(strangerHousehold != "")
                let badClient = try await chat.send("hi", clientId: "")
                #expect(badClient.status == 400)
                #expect((badClient.json["error"] as? [String: Any])?["field"] as? String == "client_id")
            }
        }
    }
}
