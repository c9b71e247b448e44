import Foundation
import HearthEvents
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The household assistant end to end: retrieval with cited sources, tool intents proposed and
    /// executed only on confirmation, the audit log, rejection and the lapse of proposed actions.
    @Suite struct Assistant {
        struct Session {
            let gateway: ServiceProcess
            let user: GatewayUser

            func ask(_ text: String, timeZone: String? = "Europe/London", wire: AssistWire = .sse) async throws -> [StreamedEvent] {
                var body: [String: Any] = ["text": text]
                if let timeZone { body["time_zone"] = timeZone }
                let reply = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/assistant/messages"), body, headers: user.headers(["Accept": wire.rawValue]))
                #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.header("X-Conversation-Id") != nil)
                let events = try wire.parse(reply.body).events
                _ = try expectWellFormedStream(events, terminal: "final", wire: wire)
                return events
            }

            /// The proposed actions of a finished answer (its `final` event).
            func proposedActions(_ text: String) async throws -> [[String: Any]] {
                let events = try await ask(text)
                let final = try #require(events.first { $0.event == "final" })
                return final.object["actions"] as? [[String: Any]] ?? []
            }

            func decide(_ actionId: String, _ verb: String, as other: GatewayUser? = nil) async throws -> HTTPTestClient.Reply {
                try await HTTPTestClient.send(
                    "POST", gateway.baseURL.appendingPathComponent("v1/assistant/actions/\(actionId)/\(verb)"), headers: (other ?? user).headers)
            }

            func actions(status: String) async throws -> [[String: Any]] {
                let url = gateway.baseURL.appendingPathComponent("v1/assistant/actions").appending(queryItems: [.init(name: "status", value: status)])
                let reply = try await HTTPTestClient.send("GET", url, headers: user.headers)
                #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
                return reply.json["actions"] as? [[String: Any]] ?? []
            }
        }

        static func reminderRows(of userId: String) async throws -> [(id: UUID, title: String, due: Date, source: String)] {
            let user = try #require(UUID(uuidString: userId))
            return try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    "SELECT reminder_id, title, due_at, source FROM reminders WHERE user_id = \(user) ORDER BY due_at", logger: TestEnvironment.logger)
                var found: [(id: UUID, title: String, due: Date, source: String)] = []
                for try await (id, title, due, source) in rows.decode((UUID, String, Date, String).self) { found.append((id, title, due, source)) }
                return found
            }
        }

        /// Tomorrow at 07:00 in London, as the test's clock sees it.
        static func tomorrowAtSeven() -> Date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Europe/London")!
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: Date())!
            var parts = calendar.dateComponents([.year, .month, .day], from: tomorrow)
            parts.hour = 7
            return calendar.date(from: parts)!
        }

        @Test func remindMeTomorrowIsProposedAndScheduledOnlyOnceConfirmed() async throws {
            try await ServiceProcess.with("notifier") { _ in
                try await ServiceProcess.with("embedding-worker") { _ in
                    try await AssistStack.with { gateway, _ in
                        let (user, _) = try await GatewayUser.withHousehold(gateway, name: "The Swimmers")
                        let session = Session(gateway: gateway, user: user)

                        // A chat message the assistant can retrieve and cite.
                        let chat = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/chats"), ["title": "Family"], headers: user.headers)
                        #expect(chat.status == 201)
                        let chatId = try #require(chat.json["chat_id"] as? String)
                        let sent = try await HTTPTestClient.postJSON(
                            gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/messages"),
                            ["text": "Swimming lessons moved to Thursday at five, bring goggles and a towel", "client_id": "swim-1"], headers: user.headers)
                        #expect(sent.status == 201)
                        let messageId = try #require((sent.json["message"] as? [String: Any])?["message_id"] as? String)
                        let embedded = try await ConversationProfile.poll {
                            let url = gateway.baseURL.appendingPathComponent("v1/chats/search").appending(queryItems: [.init(name: "q", value: "swimming")])
                            let reply = try await HTTPTestClient.send("GET", url, headers: user.headers)
                            return (reply.json["results"] as? [[String: Any]] ?? []).contains { $0["message_id"] as? String == messageId }
                        }
                        #expect(embedded, "the message was never embedded")

                        // A question is answered from retrieval, citing the message.
                        let answer = try await session.ask("When are the swimming lessons this week?", wire: .ndjson)
                        let final = try #require(answer.first { $0.event == "final" })
                        let sources = final.object["sources"] as? [[String: Any]] ?? []
                        let cited = try #require(sources.first { $0["id"] as? String == messageId }, "the message is not a source: \(sources)")
                        #expect(cited["kind"] as? String == "message")
                        let ref = try #require(cited["ref"] as? String)
                        let text = try #require(final.object["answer"] as? String)
                        #expect(text.contains(ref) && text.contains("goggles"), "\(text)")
                        #expect((final.object["actions"] as? [Any])?.isEmpty == true, "a question proposed an action")

                        // "Remind me tomorrow at 7am ..." becomes a proposed set_reminder, shown in the stream.
                        let events = try await session.ask("Remind me tomorrow at 7am to pack swim bags")
                        let toolCall = try #require(events.first { $0.event == "tool_call" && $0.object["tool"] as? String == "set_reminder" })
                        #expect(toolCall.object["status"] as? String == "pending")
                        let actions = try #require(events.first { $0.event == "final" }?.object["actions"] as? [[String: Any]])
                        #expect(actions.count == 1)
                        let action = try #require(actions.first)
                        let actionId = try #require(action["action_id"] as? String)
                        let arguments = try #require(action["arguments"] as? [String: Any])
                        #expect(arguments["title"] as? String == "Pack swim bags")
                        #expect(CalendarStack.instant(arguments["at"] as? String) == Self.tomorrowAtSeven(), "\(arguments)")

                        // Nothing is scheduled while it waits, though the proposal is projected.
                        let pending = try await ConversationProfile.poll {
                            try await session.actions(status: "pending").contains { $0["action_id"] as? String == actionId }
                        }
                        #expect(pending)
                        try await Task.sleep(for: .seconds(1))
                        #expect(try await Self.reminderRows(of: user.userId).isEmpty, "a reminder exists before confirmation")

                        // Someone from another household cannot decide it.
                        let (stranger, _) = try await GatewayUser.withHousehold(gateway, name: "Strangers")
                        #expect(try await session.decide(actionId, "confirm", as: stranger).status == 404)

                        let confirmed = try await session.decide(actionId, "confirm")
                        #expect(confirmed.status == 200, "\(String(decoding: confirmed.body, as: UTF8.self))")
                        #expect(confirmed.json["status"] as? String == "executed")
                        #expect(confirmed.json["effect_type"] as? String == "reminder.requested")
                        let reminderId = try #require((confirmed.json["effect_id"] as? String).flatMap(UUID.init(uuidString:)))

                        // The notifier holds the reminder, due tomorrow at 07:00 London time.
                        var reminders: [(id: UUID, title: String, due: Date, source: String)] = []
                        let held = try await ConversationProfile.poll {
                            reminders = try await Self.reminderRows(of: user.userId)
                            return !reminders.isEmpty
                        }
                        #expect(held, "the notifier never held the reminder")
                        #expect(reminders.count == 1)
                        #expect(reminders.first?.id == reminderId)
                        #expect(reminders.first?.title == "Pack swim bags")
                        #expect(reminders.first?.due == Self.tomorrowAtSeven())
                        #expect(reminders.first?.source == "assistant")

                        // The audit log records who confirmed what.
                        let audit = try await HTTPTestClient.send(
                            "GET", gateway.baseURL.appendingPathComponent("v1/assistant/audit"),
                            headers: user.headers(["X-Consistency-Token": try #require(confirmed.json["position"] as? String)]))
                        #expect(audit.status == 200)
                        let entry = try #require((audit.json["entries"] as? [[String: Any]])?.first { $0["action_id"] as? String == actionId })
                        #expect(entry["decision"] as? String == "executed")
                        #expect(entry["tool"] as? String == "set_reminder")
                        #expect((entry["decided_by"] as? String)?.lowercased() == user.userId.lowercased())
                        #expect((entry["effect_id"] as? String)?.lowercased() == reminderId.uuidString.lowercased())

                        // Decided once: a second confirmation changes nothing.
                        #expect(try await session.decide(actionId, "confirm").status == 409)
                        #expect(try await Self.reminderRows(of: user.userId).count == 1)
                    }
                }
            }
        }

        @Test func rejectedAndLapsedActionsAreNeverExecuted() async throws {
            try await AssistStack.with(orchestrator: ["HEARTH_ASSISTANT_ACTION_TTL_S": "3"]) { gateway, _ in
                let (user, _) = try await GatewayUser.withHousehold(gateway, name: "The Deciders")
                let session = Session(gateway: gateway, user: user)

                let rejectedId = try #require(try await session.proposedActions("Add swimming lessons to the calendar on Saturday at 10").first?["action_id"] as? String)
                let rejected = try await session.decide(rejectedId, "reject")
                #expect(rejected.status == 200, "\(String(decoding: rejected.body, as: UTF8.self))")
                #expect(rejected.json["status"] as? String == "rejected")
                #expect(try await session.decide(rejectedId, "confirm").status == 409)
                #expect(try await session.actions(status: "rejected").contains { $0["action_id"] as? String == rejectedId })

                let lapsingId = try #require(try await session.proposedActions("remind me in 20 minutes to move the car").first?["action_id"] as? String)
                let expired = try await ConversationProfile.poll {
                    try await session.actions(status: "expired").contains { $0["action_id"] as? String == lapsingId }
                }
                #expect(expired, "the action never lapsed")
                let late = try await session.decide(lapsingId, "confirm")
                #expect(late.status == 410, "\(String(decoding: late.body, as: UTF8.self))")
                #expect(try await Self.reminderRows(of: user.userId).isEmpty)

                let audit = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assistant/audit"), headers: user.headers)
                let entries = audit.json["entries"] as? [[String: Any]] ?? []
                #expect(entries.map { $0["decision"] as? String } == ["rejected"], "\(entries)")

                // Bad input is a 400 naming the field; an unknown or malformed action id a 404 / 400.
                func post(_ body: [String: Any]) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/assistant/messages"), body, headers: user.headers)
                }
                for (body, field) in [
                    (["text": "  "], "text"), (["text": "hi", "time_zone": "Mars/Olympus"], "time_zone"),
                    (["text": "hi", "conversation_id": "nope"], "conversation_id"), (["text": String(repeating: "a", count: 2001)], "text"),
                ] as [([String: Any], String)] {
                    let reply = try await post(body)
                    #expect(reply.status == 400)
                    #expect((reply.json["error"] as? [String: Any])?["field"] as? String == field, "\(String(decoding: reply.body, as: UTF8.self))")
                }
                #expect(try await session.decide(UUID().uuidString, "confirm").status == 404)
                #expect(try await session.decide("not-an-id", "reject").status == 400)
                let lonely = try await GatewayUser.signIn(gateway)
                let noHousehold = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/assistant/messages"), ["text": "hello"], headers: lonely.headers)
                #expect(noHousehold.status == 409)
            }
        }

        @Test func aCoachLinkedByInviteChatsAndTheAssistantHasTheProfileInContext() async throws {
            try await AssistStack.with { gateway, _ in
                let (parent, household) = try await GatewayUser.withHousehold(gateway, name: "The Coached")
                // A coach joins through an invite and can then be in a chat with the parent.
                let coach = try await GatewayUser.signIn(gateway)
                let invite = try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/households/\(household)/invites"), headers: parent.headers)
                let code = try #require(invite.json["code"] as? String)
                #expect(try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/invites/\(code)/accept"), headers: coach.headers).status == 200)
                let chat = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/chats"), ["title": "Coaching", "member_ids": [coach.userId]], headers: parent.headers)
                #expect(chat.status == 201, "\(String(decoding: chat.body, as: UTF8.self))")
                let chatId = try #require(chat.json["chat_id"] as? String)
                let sent = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/messages"), ["text": "Week two: more veg at dinner", "client_id": "c-1"],
                    headers: coach.headers)
                #expect(sent.status == 201)
                let history = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/messages"),
                    headers: parent.headers(["X-Consistency-Token": try #require(sent.json["position"] as? String)]))
                #expect((history.json["messages"] as? [[String: Any]])?.contains { $0["text"] as? String == "Week two: more veg at dinner" } == true)

                // A profile fact of the household reaches the assistant's context.
                let householdId = try #require(UUID(uuidString: household))
                let publisher = EventPublisher(producer: try KafkaTestEnvironment.producer(clientId: "hearth-tests-assistant-profile"), source: "tests", keys: nil)
                try await publisher.publish(ProfileFactExtracted(
                    factId: UUID(), householdId: householdId, memberId: nil, subject: "Sam", kind: "allergy", value: "sesame", polarity: "add",
                    confidence: 0.9, messageId: UUID(), chatId: try #require(UUID(uuidString: chatId)), quotedSpan: "Sam is allergic to sesame",
                    extractor: "rules"), correlationId: "assistant-profile-test")
                let projected = try await ConversationProfile.poll {
                    !ConversationProfile.facts(try await ConversationProfile.profile(gateway, parent, household: household)).isEmpty
                }
                #expect(projected)
                let events = try await Session(gateway: gateway, user: parent).ask("What should we cook tonight?")
                let context = try #require(events.first { $0.event == "context" })
                #expect(context.object["profile"] as? [String] == ["Sam: allergy sesame (proposed)"], "\(context.object)")
            }
        }

        @Test func confirmedCalendarChoreAndMessageActionsTakeEffect() async throws {
            try await AssistStack.with { gateway, _ in
                let (alice, household) = try await GatewayUser.withHousehold(gateway, name: "The Doers")
                let partnerName = "Robin" + String((0..<6).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement()! })
                let partner = try await GatewayUser.signIn(gateway, name: partnerName)
                let invite = try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/households/\(household)/invites"), headers: alice.headers)
                let code = try #require(invite.json["code"] as? String)
                #expect(try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/invites/\(code)/accept"), headers: partner.headers).status == 200)
                let samId = try await CalendarStack.addMember(gateway, user: alice, household: household, name: "Sam")
                let session = Session(gateway: gateway, user: alice)

                // Calendar: the entry exists once confirmed.
                let event = try #require(try await session.proposedActions("Put swimming lessons on our calendar tomorrow at 5pm").first)
                #expect(event["tool"] as? String == "create_calendar_event")
                let eventDecision = try await session.decide(try #require(event["action_id"] as? String), "confirm")
                #expect(eventDecision.status == 200, "\(String(decoding: eventDecision.body, as: UTF8.self))")
                let eventId = try #require(eventDecision.json["effect_id"] as? String)

                // Chore: Sam's occurrence lands in the household calendar.
                let chore = try #require(try await session.proposedActions("Add a chore: water the plants for Sam tomorrow").first)
                #expect(chore["tool"] as? String == "add_chore")
                #expect((chore["arguments"] as? [String: Any])?["member_id"] as? String == samId)
                let choreDecision = try await session.decide(try #require(chore["action_id"] as? String), "confirm")
                #expect(choreDecision.status == 200, "\(String(decoding: choreDecision.body, as: UTF8.self))")
                #expect(choreDecision.json["effect_type"] as? String == "chore.scheduled")

                let from = Timestamp(Date().addingTimeInterval(-86_400)), to = Timestamp(Date().addingTimeInterval(3 * 86_400))
                var entries: [[String: Any]] = []
                let listed = try await ConversationProfile.poll {
                    entries = try await CalendarStack.list(gateway, user: alice, from: from.text, to: to.text)
                    let titles = entries.compactMap { $0["title"] as? String }
                    return entries.contains { ($0["event_id"] as? String)?.lowercased() == eventId.lowercased() }
                        && titles.contains { $0.contains("Water the plants") }
                }
                #expect(listed, "\(entries)")

                // Message: a chat with the partner holds it, and the partner can read it.
                let message = try #require(try await session.proposedActions("Tell \(partnerName) that dinner is at 6").first)
                #expect(message["tool"] as? String == "send_message")
                let messageDecision = try await session.decide(try #require(message["action_id"] as? String), "confirm")
                #expect(messageDecision.status == 200, "\(String(decoding: messageDecision.body, as: UTF8.self))")
                let messageId = try #require((messageDecision.json["effect_id"] as? String).flatMap(UUID.init(uuidString:)))
                var chatId: UUID?
                let delivered = try await ConversationProfile.poll {
                    chatId = try await TestEnvironment.withPostgres { client in
                        let rows = try await client.query("SELECT chat_id FROM chat_messages WHERE message_id = \(messageId)", logger: TestEnvironment.logger)
                        for try await id in rows.decode(UUID.self) { return id }
                        return nil
                    }
                    return chatId != nil
                }
                #expect(delivered)
                let read = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/chats/\(try #require(chatId).uuidString)/messages"), headers: partner.headers)
                #expect(read.status == 200)
                #expect((read.json["messages"] as? [[String: Any]])?.contains { $0["text"] as? String == "Dinner is at 6" } == true, "\(read.json)")

                // Proposed while the partner was here, confirmed after they left: refused, nothing sent.
                let late = try #require(try await session.proposedActions("Tell \(partnerName) that the bins go out tonight").first)
                #expect(try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/households/\(household)/leave"), headers: partner.headers).status == 200)
                let stale = try await session.decide(try #require(late["action_id"] as? String), "confirm")
                #expect(stale.status == 409 && stale.errorCode == "action_stale" && stale.errorField == "arguments.recipient_user_id", "\(stale.text)")
                #expect(try await session.actions(status: "pending").contains { $0["action_id"] as? String == late["action_id"] as? String }, "it stays undone")
            }
        }
    }
}

/// An RFC 3339 instant for query strings.
private struct Timestamp {
    let text: String
    init(_ date: Date) { text = ISO8601DateFormatter().string(from: date) }
}
