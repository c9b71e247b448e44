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
                    name: "send_message", arguments: #"{"recipient":"Sam","text":"Dinner at six"}"#, prompt: 400, completion: 30)),
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

                    // "Sam" is two people: the answer asks which, and nothing is proposed.
                    let ambiguous = try await session.ask("Tell Sam dinner is at six")
                    let askedBack = try #require(ambiguous.first { $0.event == "final" }?.object)
                    #expect((askedBack["actions"] as? [Any])?.isEmpty == true)
                    let choices = ((askedBack["ambiguous"] as? [[String: Any]])?.first?["choices"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                    #expect(Set(choices) == ["Sam Lee", "Sam Park"], "\(askedBack)")
                    #expect((askedBack["answer"] as? String)?.contains("Which Sam") == true, "\(askedBack)")

                    // Only the valid proposal waits for a decision; nothing was executed.
                    let pending = try await ConversationProfile.poll { try await session.actions(status: "pending").count == 1 }
                    #expect(pending)
                    #expect(try await Assistant.reminderRows(of: user.userId).isEmpty)
                }
            }
        }
    }
}
