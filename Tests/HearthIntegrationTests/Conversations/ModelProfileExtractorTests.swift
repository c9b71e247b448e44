import AsyncHTTPClient
import Foundation
import HearthAssist
import HearthCtlCommands
import HearthDomain
import HearthEvents
import ProfileExtractorService
import Testing

/// The model-backed profile extractor against a local fake of OpenAI's Chat Completions API,
/// through the real router and OpenAI client.
@Suite struct ModelProfileExtractorTests {
    static let household = UUID()
    static let samId = UUID()
    static let sent = ChatMessageSent(
        messageId: UUID(), chatId: UUID(), householdId: household, authorId: UUID(), authorName: "Ines",
        text: "Heads up: Sam is allergic to sesame now, and I've stopped eating meat.", clientId: "m-1")

    func extractor(_ baseURL: String, _ client: HTTPClient) throws -> ModelProfileFactExtractor {
        let provider = OpenAIChatProvider(
            model: "gpt-4o-mini", apiKey: "sk-test-extraction", baseURL: baseURL, httpClient: client, retry: ProviderTimeoutsForTests.retry,
            timeouts: ProviderTimeoutsForTests.timeouts, logger: ModelRouterProviderTests.logger)
        let router = ModelRouter(
            chains: [.extraction: [provider]], prices: try ModelPrices.bundled(), ledger: InMemoryBudgetLedger(),
            logger: ModelRouterProviderTests.logger)
        return ModelProfileFactExtractor(
            router: router, fallback: try ProfileFactExtractor.bundled(), vocabulary: try AllergenVocabulary.bundled(),
            logger: ModelRouterProviderTests.logger)
    }

    var message: ProfileMessage {
        ProfileMessage(
            messageId: Self.sent.messageId, chatId: Self.sent.chatId, householdId: Self.household, text: Self.sent.text, speaker: "Ines",
            members: ["Ines", "Sam"])
    }

    @Test func theModelsFactsArePublishedWithTheirProvenance() async throws {
        let reply = #"{"facts":[{"kind":"allergy","subject":"Sam","value":"sesame","confidence":0.95,"removal":false,"quoted_span":"Sam is allergic to sesame now"},"#
            + #"{"kind":"diet","subject":"Ines","value":"vegetarian","confidence":0.8,"removal":false,"quoted_span":"I've stopped eating meat"},"#
            + #"{"kind":"allergy","subject":"Sam","value":"peanut","confidence":0.9,"removal":false,"quoted_span":"Sam is allergic to peanuts"}]}"#
        // Streamed in pieces, as the API does.
        let pieces = stride(from: 0, to: reply.count, by: 40).map { start in
            String(reply.dropFirst(start).prefix(40))
        }
        let server = FakeModelServer(["/v1/chat/completions": [.stream(ModelWire.openAI(pieces, prompt: 420, completion: 90))]])
        let message = self.message
        let reading = try await server.serve { base, client in
            try await extractor(base, client).read(message)
        }
        #expect(reading.extractor == "openai:gpt-4o-mini")
        let events = ProfileExtractionProjection.announcements(of: reading, from: Self.sent, memberIds: ["Sam": Self.samId])
        #expect(events.map { "\($0.kind) \($0.subject) \($0.value) \($0.polarity)" } == ["allergy Sam sesame add", "diet Ines vegetarian add"],
                "the peanut fact quotes words the message does not contain")
        for event in events {
            #expect(event.messageId == Self.sent.messageId)
            #expect(event.chatId == Self.sent.chatId)
            #expect(event.householdId == Self.household)
            #expect(Self.sent.text.contains(event.quotedSpan))
            #expect(event.extractor == "openai:gpt-4o-mini")
        }
        #expect(events.first?.quotedSpan == "Sam is allergic to sesame now")
        #expect(events.first?.memberId == Self.samId)
        #expect(events.last?.memberId == nil)

        let request = try #require(await server.requests.first)
        #expect(request.headers["authorization"] == "Bearer sk-test-extraction")
        let format = try #require(request.body["response_format"] as? String)
        #expect(format.contains("json_schema") && format.contains("profile_facts") && format.contains("quoted_span"))
        #expect((request.body["messages"] as? String)?.contains("Sam is allergic to sesame now") == true, "the message is in the prompt")
    }

    @Test func aReplyThatIsNotJSONIsReadByTheRulesInstead() async throws {
        let server = FakeModelServer(["/v1/chat/completions": [.stream(ModelWire.openAI(["Sam is allergic to sesame."], prompt: 420, completion: 9))]])
        let message = self.message
        let reading = try await server.serve { base, client in
            try await extractor(base, client).read(message)
        }
        #expect(reading.extractor == "rules")
        #expect(reading == (try await ProfileFactExtractor.bundled().read(message)))
    }
}
