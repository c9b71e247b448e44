import Foundation
import Testing

extension BackboneSuite {
    /// With a provider in the planning chain, the assistant's intents are the model's own tool
    /// calls, validated before anything is proposed.
    @Suite struct AssistantToolCalls {
        @Test func theModelsToolCallIsProposedAsItIsAndAnInvalidOrAmbiguousOneNever() async throws {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Europe/London")!
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: Date())!
            let day = calendar.dateComponents([.year, .month, .day], from: tomorrow)
            let local = String(format: "%04d-%02d-%02d", day.year!, day.month!, day.day!)
            var at = day
            at.hour = 9
            at.minute = 30
            let dueAt = try #require(calendar.date(from: at))
            let server = FakeModelServer(["/v1/chat/completions": [
                .stream(ModelWire.openAIToolCall(
                    name: "set_reminder", arguments: #"{"title":"Call the dentist","at":"\#(local)T09:30","member":null}"#, prompt: 400, completion: 30)),
                .stream(ModelWire.openAIToolCall(
                    name: "add_chore", arguments: #"{"chore":"Hoover","assignee":null,"day":"\#(local)","time":"10:00","minutes":9999}"#,
                    prompt: 400, completion: 30)),
                .stream(ModelWire.openAIToolCall(
                    name: "set_reminder", arguments: #"{"title":"Pick up Sam","at":"\#(local)T15:00","member":"Sam"}"#, prompt: 400, completion: 30)),
            ]])
            try await server.serve { base, _ in
                let orchestrator = [
                    "HEARTH_MODEL_CHAIN_PLANNING": "openai:gpt-4o-mini", "HEARTH_OPENAI_API_KEY": "sk-test-tools", "HEARTH_OPENAI_BASE_URL": base,
                ]
                try await AssistStack.with(orchestrator: orchestrator) { gateway, _ in
                    let (user, household) = try await GatewayUser.withHousehold(gateway, name: "The Toolmakers")
                    for name in ["Sam Lee", "Sam Park"] {
                        let added = try await HTTPTestClient.postJSON(
                            gateway.baseURL.appendingPathComponent("v1/households/\(household)/members"), ["name": name, "role": "parent"],
                            headers: user.headers)
                        #expect(added.status == 201)
                    }
                    let session = Assistant.Session(gateway: gateway, user: user)

                    // Exactly the model's call: "tomorrow morning" alone would give the rules no time.
                    let events = try await session.ask("Can you make sure I call the dentist tomorrow morning?")
                    let final = try #require(events.first { $0.event == "final" }?.object)
                    #expect(final["intents_read_by"] as? String == "openai:gpt-4o-mini", "\(final)")
                    let actions = final["actions"] as? [[String: Any]] ?? []
                    #expect(actions.count == 1 && actions.first?["tool"] as? String == "set_reminder", "\(actions)")
                    let arguments = try #require(actions.first?["arguments"] as? [String: Any])
                    #expect(arguments["title"] as? String == "Call the dentist")
                    #expect(CalendarStack.instant(arguments["at"] as? String) == dueAt, "\(arguments)")
                    let sent = try #require(await server.requests(to: "/v1/chat/completions").first)
                    let tools = try #require(sent.body["tools"] as? String)
                    #expect(["set_reminder", "create_calendar_event", "add_chore", "send_message", "search_messages", "get_profile"].allSatisfy(tools.contains))

                    // Out of the schema's range: refused, reported, nothing proposed.
                    let invalid = try await session.ask("Add hoovering as a chore tomorrow")
                    let refusedFinal = try #require(invalid.first { $0.event == "final" }?.object)
                    #expect((refusedFinal["actions"] as? [Any])?.isEmpty == true, "\(refusedFinal)")
                    let refused = try #require((refusedFinal["refused_tool_calls"] as? [[String: Any]])?.first, "\(refusedFinal)")
                    #expect(refused["tool"] as? String == "add_chore")
                    let error = try #require(refused["error"] as? [String: Any])
                    #expect(error["error"] as? String == "out_of_range" && error["argument"] as? String == "minutes", "\(error)")
                    #expect(invalid.contains { $0.event == "tool_result" && $0.object["refused"] != nil })

                    // "Sam" is two people: the answer asks which, and the action waits for the choice.
                    let ambiguous = try await session.ask("Remind me to pick up Sam tomorrow at three")
                    let askedBack = try #require(ambiguous.first { $0.event == "final" }?.object)
                    let choices = ((askedBack["ambiguous"] as? [[String: Any]])?.first?["choices"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                    #expect(Set(choices) == ["Sam Lee", "Sam Park"], "\(askedBack)")
                    #expect((askedBack["answer"] as? String)?.contains("Which Sam") == true, "\(askedBack)")
                    let waiting = try #require((askedBack["actions"] as? [[String: Any]])?.first, "\(askedBack)")
                    let waitingId = try #require(waiting["action_id"] as? String)
                    #expect(((waiting["choice"] as? [String: Any])?["options"] as? [Any])?.count == 2, "\(waiting)")
                    #expect(try await ConversationProfile.poll { try await session.actions(status: "pending").count == 2 })
                    let early = try await session.decide(waitingId, "confirm")
                    #expect(early.status == 409 && early.errorCode == "choice_required", "\(String(decoding: early.body, as: UTF8.self))")

                    // Edited: checked like a model's call; the full name settles it.
                    func edit(_ arguments: [String: Any]) async throws -> HTTPTestClient.Reply {
                        try await HTTPTestClient.send(
                            "PATCH", gateway.baseURL.appendingPathComponent("v1/assistant/actions/\(waitingId)"),
                            body: try JSONSerialization.data(withJSONObject: ["arguments": arguments]), headers: user.headers)
                    }
                    let partner = try await GatewayUser.signIn(gateway)
                    try await Memberships.join(partner, household, invitedBy: user, gateway: gateway)
                    let byPartner = try await HTTPTestClient.send(
                        "PATCH", gateway.baseURL.appendingPathComponent("v1/assistant/actions/\(waitingId)"),
                        body: try JSONSerialization.data(withJSONObject: ["arguments": ["title": "x", "at": "\(local)T16:00", "member": "Sam Park"]]),
                        headers: partner.headers)
                    #expect(byPartner.status == 403 && byPartner.errorCode == "proposer_only", "only the one who asked edits")
                    let stillTwo = try await edit(["title": "Pick up Sam", "at": "\(local)T16:00", "member": "Sam"])
                    #expect(stillTwo.status == 409 && stillTwo.errorField == "arguments.member")
                    let badTime = try await edit(["title": "Pick up Sam", "at": "teatime", "member": "Sam Park"])
                    #expect(badTime.status == 400 && badTime.errorField == "arguments.at", "\(String(decoding: badTime.body, as: UTF8.self))")
                    let settled = try await edit(["title": "Pick up Sam Park", "at": "\(local)T16:00", "member": "Sam Park"])
                    #expect(settled.status == 200, "\(String(decoding: settled.body, as: UTF8.self))")
                    #expect((settled.json["arguments"] as? [String: Any])?["member_name"] as? String == "Sam Park")
                    let confirmed = try await session.decide(waitingId, "confirm")
                    #expect(confirmed.status == 200, "\(String(decoding: confirmed.body, as: UTF8.self))")
                    #expect(confirmed.json["effect_type"] as? String == "reminder.requested", "the edited action took effect")
                    let audit = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assistant/audit"), headers: user.headers)
                    let entry = try #require((audit.json["entries"] as? [[String: Any]])?.first { $0["action_id"] as? String == waitingId })
                    #expect((entry["proposed_arguments"] as? [String: Any])?["member_name"] as? String == "Sam Lee", "\(entry)")
                    #expect((entry["arguments"] as? [String: Any])?["member_name"] as? String == "Sam Park")
                    #expect(entry["summary"] as? String != entry["proposed_summary"] as? String)
                    #expect((audit.json["entries"] as? [Any])?.count == 1, "nothing else was decided or executed")

                    // The valid proposal still waits; the refused call was never executed.
                    #expect(try await session.actions(status: "pending").count == 1)
                }
            }
        }

        /// Anthropic's tool use: the tools go out with their JSON schemas as `input_schema`, the
        /// `tool_use` block's input (streamed in slices) is the proposal; an unknown tool is refused.
        @Test func anthropicToolUseIsProposedAndAnUnknownToolRefused() async throws {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Europe/London")!
            let day = calendar.dateComponents([.year, .month, .day], from: calendar.date(byAdding: .day, value: 1, to: Date())!)
            let tomorrow = String(format: "%04d-%02d-%02d", day.year!, day.month!, day.day!)
            let server = FakeModelServer(["/v1/messages": [
                .stream(ModelWire.anthropicToolUse(
                    name: "add_chore", arguments: #"{"chore":"Water the plants","assignee":null,"day":"\#(tomorrow)","time":"18:00","minutes":10}"#,
                    text: "I'll add that.", input: 500, output: 40)),
                .stream(ModelWire.anthropicToolUse(name: "delete_household", arguments: #"{"confirm":true}"#, input: 500, output: 20)),
            ]])
            try await server.serve { base, _ in
                let orchestrator = [
                    "HEARTH_MODEL_CHAIN_PLANNING": "anthropic:claude-3-5-haiku-latest", "HEARTH_ANTHROPIC_API_KEY": "sk-ant-tools",
                    "HEARTH_ANTHROPIC_BASE_URL": base + "/",
                ]
                try await AssistStack.with(orchestrator: orchestrator) { gateway, _ in
                    let (user, _) = try await GatewayUser.withHousehold(gateway, name: "The Gardeners")
                    let session = Assistant.Session(gateway: gateway, user: user)
                    let events = try await session.ask("Someone has to water the plants, ten minutes, put it on the list")
                    let final = try #require(events.first { $0.event == "final" }?.object)
                    #expect(final["intents_read_by"] as? String == "anthropic:claude-3-5-haiku-latest", "\(final)")
                    let action = try #require((final["actions"] as? [[String: Any]])?.first, "\(final)")
                    #expect(action["tool"] as? String == "add_chore")
                    let arguments = try #require(action["arguments"] as? [String: Any])
                    #expect(arguments["chore"] as? String == "Water the plants" && arguments["minutes"] as? Int == 10, "\(arguments)")
                    let sent = try #require(await server.requests(to: "/v1/messages").first)
                    let tools = try #require(sent.body["tools"] as? String)
                    #expect(tools.contains("input_schema") && tools.contains("add_chore") && tools.contains("get_profile"), "\(tools)")
                    #expect(sent.headers["x-api-key"] == "sk-ant-tools")

                    let unknown = try await session.ask("Delete everything")
                    let refusedFinal = try #require(unknown.first { $0.event == "final" }?.object)
                    #expect((refusedFinal["actions"] as? [Any])?.isEmpty == true, "\(refusedFinal)")
                    let refused = try #require((refusedFinal["refused_tool_calls"] as? [[String: Any]])?.first, "\(refusedFinal)")
                    #expect(refused["tool"] as? String == "delete_household", "\(refused)")
                    // The actions read model may still be applying the proposal: read until it has.
                    #expect(try await ConversationProfile.poll { try await session.actions(status: "pending").count == 1 }, "only the valid call waits")
                }
            }
        }
    }
}

extension BackboneSuite {
    /// A conversation with the assistant: its turns are listed, and the next message carries the
    /// recent ones to the model.
    @Suite struct AssistantConversations {
        @Test func aFollowUpCarriesTheConversationAndTheTurnsAreListedToTheirOwnerOnly() async throws {
            let server = FakeModelServer(["/v1/chat/completions": [
                .stream(ModelWire.openAI(["Swimming is on Thursday at five."], prompt: 300, completion: 10)),
                .stream(ModelWire.openAI(["Nothing is planned for Sunday."], prompt: 300, completion: 10)),
            ]])
            try await server.serve { base, _ in
                let orchestrator = [
                    "HEARTH_MODEL_CHAIN_SYNTHESIS": "openai:gpt-4o-mini", "HEARTH_OPENAI_API_KEY": "sk-test-turns", "HEARTH_OPENAI_BASE_URL": base,
                ]
                try await AssistStack.with(orchestrator: orchestrator) { gateway, _ in
                    let (user, _) = try await GatewayUser.withHousehold(gateway, name: "The Talkers")
                    func ask(_ text: String, conversation: String?, as asker: GatewayUser) async throws -> HTTPTestClient.Reply {
                        var body: [String: Any] = ["text": text, "time_zone": "Europe/London"]
                        if let conversation { body["conversation_id"] = conversation }
                        return try await HTTPTestClient.postJSON(
                            gateway.baseURL.appendingPathComponent("v1/assistant/messages"), body, headers: asker.headers(["Accept": "application/x-ndjson"]))
                    }
                    let first = try await ask("When is swimming this week?", conversation: nil, as: user)
                    #expect(first.status == 200)
                    let conversation = try #require(first.header("X-Conversation-Id"))
                    // The turn is listed once its run has finished and been projected.
                    let listed = try await ConversationProfile.poll {
                        let reply = try await HTTPTestClient.send(
                            "GET", gateway.baseURL.appendingPathComponent("v1/assistant/conversations/\(conversation)"), headers: user.headers)
                        return (reply.json["turns"] as? [[String: Any]])?.first?["answer"] as? String == "Swimming is on Thursday at five."
                    }
                    #expect(listed, "the first turn and its answer are listed")

                    let second = try await ask("And on Sunday?", conversation: conversation, as: user)
                    #expect(second.status == 200)
                    let prompts = await server.requests(to: "/v1/chat/completions").compactMap { $0.body["messages"] as? String }
                    #expect(prompts.count == 2)
                    #expect(prompts.last?.contains("When is swimming this week?") == true, "the follow-up carried the first question")
                    #expect(prompts.last?.contains("Swimming is on Thursday at five.") == true, "and its answer")
                    #expect(prompts.first?.contains("Earlier in this conversation") == false)

                    let both = try await ConversationProfile.poll {
                        let reply = try await HTTPTestClient.send(
                            "GET", gateway.baseURL.appendingPathComponent("v1/assistant/conversations/\(conversation)"), headers: user.headers)
                        return (reply.json["turns"] as? [[String: Any]])?.compactMap { $0["answer"] as? String }
                            == ["Swimming is on Thursday at five.", "Nothing is planned for Sunday."]
                    }
                    #expect(both)
                    let list = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assistant/conversations"), headers: user.headers)
                    let conversations = list.json["conversations"] as? [[String: Any]] ?? []
                    #expect(conversations.count == 1 && conversations.first?["turns"] as? Int == 2, "\(conversations)")
                    #expect(conversations.first?["last_question"] as? String == "And on Sunday?")

                    // Nobody else sees it or writes in it.
                    let (other, _) = try await GatewayUser.withHousehold(gateway, name: "The Others")
                    #expect(try await HTTPTestClient.send(
                        "GET", gateway.baseURL.appendingPathComponent("v1/assistant/conversations/\(conversation)"), headers: other.headers).status == 404)
                    #expect(try await ask("What did they ask?", conversation: conversation, as: other).status == 404)
                    let none = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assistant/conversations"), headers: other.headers)
                    #expect((none.json["conversations"] as? [Any])?.isEmpty == true)

                    // Its owner, now in a second household too, cannot carry it there.
                    let (host, secondHousehold) = try await GatewayUser.withHousehold(gateway, name: "The Seconds")
                    try await Memberships.join(user, secondHousehold, invitedBy: host, gateway: gateway)
                    let carried = try await HTTPTestClient.postJSON(
                        gateway.baseURL.appendingPathComponent("v1/assistant/messages"),
                        ["text": "And next week?", "time_zone": "Europe/London", "conversation_id": conversation],
                        headers: user.headers(["Accept": "application/x-ndjson", "X-Hearth-Household": secondHousehold]))
                    #expect(carried.status == 409 && carried.errorCode == "other_household" && carried.errorField == "conversation_id", "\(carried.text)")
                }
            }
        }
    }
}
