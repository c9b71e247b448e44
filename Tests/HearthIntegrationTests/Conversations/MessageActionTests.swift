import Foundation
import Testing

extension BackboneSuite {
    /// Contextual actions on a chat message, each a streamed assistant run: a thread summary, the
    /// related messages of the user's chats, and a suggested reminder confirmed like any action.
    @Suite struct MessageActions {
        @Test func summariseRelatedAndRemindRunOnAMessageForTheChatsMembersOnly() async throws {
            try await ServiceProcess.with("embedding-worker") { _ in
                try await AssistStack.with { gateway, _ in
                    func url(_ path: String) -> URL { gateway.baseURL.appendingPathComponent(path) }
                    let (ana, household) = try await GatewayUser.withHousehold(gateway, name: "The Contexts")
                    let ben = try await GatewayUser.signIn(gateway)
                    try await Memberships.join(ben, household, invitedBy: ana, gateway: gateway)
                    let chat = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Week", "member_ids": [ben.userId]], headers: ana.headers)
                    let chatId = try #require(chat.json["chat_id"] as? String, "\(chat.text)")
                    var ids: [String] = []
                    for (index, (who, text)) in [
                        (ana, "Swimming lessons move to Thursday at 5pm from next week"), (ben, "ok"),
                        (ben, "I can take Sam to swimming and pack the goggles"), (ana, "Dinner at grandma's on Sunday at 6pm"),
                    ].enumerated() {
                        let sent = try await HTTPTestClient.postJSON(url("v1/chats/\(chatId)/messages"), ["text": text, "client_id": "m-\(index)"], headers: who.headers)
                        ids.append(try #require((sent.json["message"] as? [String: Any])?["message_id"] as? String, "\(sent.text)"))
                    }
                    let other = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Money"], headers: ana.headers)
                    let otherId = try #require(other.json["chat_id"] as? String)
                    let fees = try await HTTPTestClient.postJSON(
                        url("v1/chats/\(otherId)/messages"), ["text": "The swimming lesson fees for next term are due on Friday", "client_id": "fees"],
                        headers: ana.headers)
                    let feesId = try #require((fees.json["message"] as? [String: Any])?["message_id"] as? String)
                    let embedded = try await ConversationProfile.poll {
                        let search = url("v1/chats/search").appending(queryItems: [.init(name: "q", value: "swimming fees")])
                        let found = (try await HTTPTestClient.send("GET", search, headers: ana.headers).json["results"] as? [[String: Any]] ?? [])
                        return found.contains { $0["message_id"] as? String == feesId }
                    }
                    #expect(embedded, "the messages were never embedded")

                    func assist(
                        _ message: String, _ action: String, as who: GatewayUser, chat: String = chatId, after position: String? = nil
                    ) async throws -> HTTPTestClient.Reply {
                        var headers = ["Accept": "application/x-ndjson"]
                        if let position { headers["X-Consistency-Token"] = position }
                        return try await HTTPTestClient.postJSON(
                            url("v1/chats/\(chat)/messages/\(message)/assist"), ["action": action, "time_zone": "Europe/London"], headers: who.headers(headers))
                    }
                    func final(_ reply: HTTPTestClient.Reply) throws -> [String: Any] {
                        #expect(reply.status == 200, "\(reply.text)")
                        let events = try AssistWire.ndjson.parse(reply.body).events
                        return try #require(events.first { $0.event == "final" }?.object, "\(events.map(\.event))")
                    }

                    // The thread, summarised offline: who took part and what was said, without the "ok".
                    let summary = try final(try await assist(ids[2], "summarize", as: ben))
                    let answer = try #require(summary["answer"] as? String)
                    #expect(answer.hasPrefix("4 messages from"), "\(answer)")
                    #expect(answer.contains("Swimming lessons move to Thursday at 5pm") && answer.contains("Dinner at grandma's") && !answer.contains(": ok"), "\(answer)")
                    #expect((summary["sources"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ids)

                    // Related: the fees message of the other chat, never the message itself.
                    let related = try final(try await assist(ids[0], "related", as: ana))
                    let relatedIds = related["related"] as? [String] ?? []
                    #expect(relatedIds.contains(feesId) && !relatedIds.contains(ids[0]), "\(related)")
                    // Ben is not in the Money chat: his related messages come from his chats only.
                    let bensRelated = try final(try await assist(ids[0], "related", as: ben))
                    #expect(!(bensRelated["related"] as? [String] ?? []).contains(feesId), "\(bensRelated)")

                    // A reminder suggested from the message's own time, proposed and confirmed like any action.
                    let remind = try final(try await assist(ids[3], "remind", as: ana))
                    let action = try #require((remind["actions"] as? [[String: Any]])?.first, "\(remind)")
                    #expect(action["tool"] as? String == "set_reminder")
                    let arguments = try #require(action["arguments"] as? [String: Any])
                    #expect(arguments["title"] as? String == "Dinner at grandma's", "\(arguments)")
                    var london = Calendar(identifier: .gregorian)
                    london.timeZone = TimeZone(identifier: "Europe/London")!
                    let sunday = try #require(london.nextDate(after: Date(), matching: DateComponents(hour: 18, minute: 0, weekday: 1), matchingPolicy: .nextTime))
                    #expect(CalendarStack.instant(arguments["at"] as? String) == sunday, "\(arguments)")
                    let actionId = try #require(action["action_id"] as? String)
                    let pending = try await ConversationProfile.poll {
                        let list = url("v1/assistant/actions").appending(queryItems: [.init(name: "status", value: "pending")])
                        return (try await HTTPTestClient.send("GET", list, headers: ana.headers).json["actions"] as? [[String: Any]] ?? [])
                            .contains { $0["action_id"] as? String == actionId }
                    }
                    #expect(pending)
                    let confirmed = try await HTTPTestClient.send("POST", url("v1/assistant/actions/\(actionId)/confirm"), headers: ana.headers)
                    #expect(confirmed.status == 200 && confirmed.json["effect_type"] as? String == "reminder.requested", "\(confirmed.text)")
                    // A message naming no time gets a suggestion to edit, and says so.
                    let untimed = try final(try await assist(ids[2], "remind", as: ben))
                    #expect((untimed["answer"] as? String)?.contains("change it before you confirm") == true, "\(untimed)")
                    #expect((untimed["actions"] as? [Any])?.count == 1)

                    // Each is a turn of its own conversation, listed to its asker.
                    let listed = try await ConversationProfile.poll {
                        let conversations = try await HTTPTestClient.send("GET", url("v1/assistant/conversations"), headers: ben.headers)
                        return (conversations.json["conversations"] as? [[String: Any]] ?? []).compactMap { $0["last_question"] as? String }
                            .contains("Summarise this thread")
                    }
                    #expect(listed)

                    // Bad input names its field; nobody outside the chat learns anything.
                    let unknown = try await assist(ids[0], "translate", as: ana)
                    #expect(unknown.status == 400 && unknown.errorField == "action", "\(unknown.text)")
                    #expect(try await assist(UUID().uuidString, "summarize", as: ana).status == 404)
                    #expect(try await assist(feesId, "summarize", as: ana).status == 404, "a message of another chat")
                    #expect(try await assist(feesId, "summarize", as: ben, chat: otherId).status == 404, "a chat Ben is not in")
                    let (stranger, _) = try await GatewayUser.withHousehold(gateway, name: "Strangers")
                    #expect(try await assist(ids[0], "summarize", as: stranger).status == 404)
                    let coach = try await BackboneSuite.Coaching.signUpCoach(gateway)
                    let invite = try await HTTPTestClient.send("POST", url("v1/coach/clients"), headers: coach.headers)
                    let code = try #require(invite.json["code"] as? String)
                    #expect(try await HTTPTestClient.postJSON(url("v1/households/\(household)/coaches"), ["code": code], headers: ana.headers).status == 201)
                    let coachChat = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Coach", "member_ids": [coach.userId]], headers: ana.headers)
                    let coachChatId = try #require(coachChat.json["chat_id"] as? String)
                    let tip = try await HTTPTestClient.postJSON(
                        url("v1/chats/\(coachChatId)/messages"), ["text": "Bedtime at 7 tonight", "client_id": "tip"], headers: coach.headers)
                    let tipId = try #require((tip.json["message"] as? [String: Any])?["message_id"] as? String)
                    // The token of the send: the action reads the thread once the message is projected.
                    let byCoach = try await assist(tipId, "remind", as: coach, chat: coachChatId, after: tip.json["position"] as? String)
                    #expect(byCoach.status == 403 && byCoach.errorCode == "household_members_only", "\(byCoach.text)")
                }
            }
        }
    }
}
