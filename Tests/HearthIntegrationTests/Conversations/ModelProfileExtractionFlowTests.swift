import Foundation
import HearthCtlCommands
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The profile-extractor started with `HEARTH_PROFILE_EXTRACTOR=model` against a local fake of
    /// OpenAI's API: a chat message becomes a household-profile fact read by the model.
    @Suite struct ModelProfileExtraction {
        @Test func aModelConfiguredExtractorPublishesTheModelsGroundedFacts() async throws {
            let reply = #"{"facts":[{"kind":"allergy","subject":"Sam","value":"sesame seeds","confidence":0.93,"removal":false,"#
                + #""quoted_span":"Sam is allergic to sesame now"},{"kind":"goal","subject":"Sam","value":"learn to swim","confidence":0.7,"#
                + #""removal":false,"quoted_span":"Sam wants to learn to swim"}]}"#
            // Every message the extractor reads gets this reply; for the others its spans are not
            // in the message, so they give nothing.
            let server = FakeModelServer(["/v1/chat/completions": [.stream(ModelWire.openAI([reply], prompt: 400, completion: 80))]])
            try await server.serve { base, _ in
                let environment = [
                    "HEARTH_PROFILE_EXTRACTOR": "model", "HEARTH_MODEL_CHAIN_EXTRACTION": "openai:gpt-4o-mini",
                    "HEARTH_OPENAI_API_KEY": "sk-test-flow", "HEARTH_OPENAI_BASE_URL": base,
                ]
                try await ServiceProcess.with("profile-extractor", environment: environment) { _ in
                    try await ServiceProcess.with("gateway") { gateway in
                        try await Self.flow(gateway)
                        try await ProjectionCatchUp.require(Self.profileProjections, timeout: .seconds(120))
                    }
                }
            }
            let requests = await server.requests(to: "/v1/chat/completions")
            #expect(requests.contains { ($0.body["response_format"] as? String)?.contains("profile_facts") == true })
            #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer sk-test-flow" })

            // The model's facts came from a reading no rebuild repeats: the tables of both ends
            // must still rebuild to the same checksum from the events alone (hearthctl reads with
            // the rules and has no model configured).
            for projection in Self.profileProjections {
                let replay = try await CommandLineTool.run(["replay", projection.name])
                #expect(replay.status == 0, "\(replay.output)\n\(replay.errors)")
                #expect(replay.output.contains("identical"), "\(replay.output)")
            }
        }

        static let profileProjections: [any Projection] = ["profile_extraction", "profile_facts"].compactMap(ReadModelCatalogue.projection(named:))

        static func flow(_ gateway: ServiceProcess) async throws {
            let (user, household) = try await GatewayUser.withHousehold(gateway, name: "The Modellers")
            try await ConversationProfile.addChildKnownToTheExtractor(gateway, user: user, household: household, name: "Sam", birthdate: "2017-02-03")
            let created = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/chats"), [:], headers: user.headers)
            let chatId = try #require(created.json["chat_id"] as? String)
            let text = "Heads up: Sam is allergic to sesame now. Sam wants to learn to swim"
            let sent = try await HTTPTestClient.postJSON(
                gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/messages"), ["text": text, "client_id": "model-1"], headers: user.headers)
            #expect(sent.status == 201)
            let messageId = try #require((sent.json["message"] as? [String: Any])?["message_id"] as? String)

            var facts: [[String: Any]] = []
            let arrived = try await ConversationProfile.poll {
                facts = ConversationProfile.facts(try await ConversationProfile.profile(gateway, user, household: household))
                return facts.count >= 2
            }
            #expect(arrived, "facts: \(facts)")
            let allergy = try #require(facts.first { $0["kind"] as? String == "allergy" })
            #expect(allergy["value"] as? String == "sesame", "the model's 'sesame seeds' is the canonical allergen")
            #expect(allergy["subject"] as? String == "Sam")
            #expect(allergy["confidence"] as? Double == 0.93)
            let source = try #require(allergy["source"] as? [String: Any])
            #expect(source["extractor"] as? String == "openai:gpt-4o-mini")
            #expect(source["message_id"] as? String == messageId)
            #expect(source["chat_id"] as? String == chatId)
            #expect(source["quoted_span"] as? String == "Sam is allergic to sesame now")
            #expect(facts.contains { $0["kind"] as? String == "goal" && $0["value"] as? String == "learn to swim" })
        }
    }
}
