import Foundation
@testable import HearthAssist
import HearthDomain
import HearthEvents
import Testing

/// The model extractor's reply check and its fall-back to the rules.
@Suite struct ProfileFactReplyTests {
    static let message = ProfileMessage(
        messageId: UUID(uuidString: "a1000000-0000-4000-8000-000000000001")!, chatId: UUID(uuidString: "c1000000-0000-4000-8000-000000000001")!,
        householdId: UUID(uuidString: "b1000000-0000-4000-8000-000000000001")!,
        text: "Sam is allergic to sesame seeds. I am vegetarian these days.", speaker: "Ines", members: ["Ines", "Sam"])

    static func fact(
        kind: String = "allergy", subject: String = "Sam", value: String = "sesame", confidence: Double = 0.9, removal: Bool = false,
        span: String = "Sam is allergic to sesame seeds"
    ) -> String {
        #"{"kind":"\#(kind)","subject":"\#(subject)","value":"\#(value)","confidence":\#(confidence),"removal":\#(removal),"quoted_span":"\#(span)"}"#
    }

    static func reply(_ facts: String...) -> String { #"{"facts":[\#(facts.joined(separator: ","))]}"# }

    @Test func aValidReplyGivesItsFactsWithCanonicalAllergens() throws {
        let vocabulary = try AllergenVocabulary.bundled()
        let parsed = try ProfileFactReply.parse(
            Self.reply(
                Self.fact(value: "Sesame Seeds"),
                Self.fact(kind: "diet", subject: "ines", value: "vegetarian", confidence: 0.8, span: "I am vegetarian these days")),
            for: Self.message, vocabulary: vocabulary)
        #expect(parsed.dropped.isEmpty)
        #expect(parsed.facts == [
            ExtractedProfileFact(kind: .allergy, subject: "Sam", value: "sesame", polarity: .add, confidence: 0.9, quotedSpan: "Sam is allergic to sesame seeds"),
            ExtractedProfileFact(kind: .diet, subject: "Ines", value: "vegetarian", polarity: .add, confidence: 0.8, quotedSpan: "I am vegetarian these days"),
        ])
        let removal = try ProfileFactReply.parse(Self.reply(Self.fact(removal: true)), for: Self.message)
        #expect(removal.facts.map(\.polarity) == [.remove])
        // A fenced reply is read too; an empty list is a valid "nothing here".
        #expect(try ProfileFactReply.parse("```json\n" + Self.reply(Self.fact()) + "\n```", for: Self.message).facts.count == 1)
        #expect(try ProfileFactReply.parse(#"{"facts":[]}"#, for: Self.message).facts.isEmpty)
    }

    @Test func ungroundedOrOutOfSchemaFactsAreDropped() throws {
        let parsed = try ProfileFactReply.parse(
            Self.reply(
                Self.fact(span: "Sam cannot eat sesame"),
                Self.fact(kind: "religion"),
                Self.fact(confidence: 1.5),
                Self.fact(subject: "Grandpa Joe"),
                #"{"kind":"allergy","subject":"Sam","value":"sesame","confidence":0.9,"removal":"no","quoted_span":"Sam is allergic to sesame seeds"}"#,
                #"{"kind":"allergy","subject":"Sam","value":"sesame","confidence":0.9,"removal":false,"quoted_span":"Sam is allergic to sesame seeds","extra":1}"#,
                Self.fact(kind: "goal", subject: "Ines", value: "run a 10k", confidence: 0.6, span: "I am vegetarian these days")),
            for: Self.message)
        #expect(parsed.facts.map(\.value) == ["run a 10k"], "only the grounded, well-formed fact stays")
        #expect(parsed.dropped.map(\.index) == [0, 1, 2, 3, 4, 5])
        #expect(parsed.dropped[0].reason.contains("quoted_span"))
        #expect(parsed.dropped[1].reason.contains("kind"))
        #expect(parsed.dropped[2].reason.contains("confidence"))
        #expect(parsed.dropped[3].reason.contains("subject"))
    }

    /// Someone named who is not a member: kept for a safety fact whose span writes the name, as
    /// the rules do; dropped for a taste, or for a name the span does not write.
    @Test func aSafetyFactAboutSomeoneNotListedKeepsTheirWrittenName() throws {
        let message = ProfileMessage(
            messageId: Self.message.messageId, chatId: Self.message.chatId, householdId: Self.message.householdId,
            text: "Noor is allergic to peanuts and Noor loves mango.", speaker: "Ines", members: ["Ines", "Sam"])
        let parsed = try ProfileFactReply.parse(
            Self.reply(
                Self.fact(subject: "Noor", value: "peanut", span: "Noor is allergic to peanuts"),
                Self.fact(kind: "preference", subject: "Noor", value: "mango", span: "Noor loves mango"),
                Self.fact(subject: "Priya", value: "peanut", span: "Noor is allergic to peanuts"),
                Self.fact(subject: "noor", value: "peanut", span: "Noor is allergic to peanuts")),
            for: message)
        #expect(parsed.facts.map { "\($0.kind.rawValue) \($0.subject) \($0.value)" } == ["allergy Noor peanut"])
        #expect(parsed.dropped.map(\.index) == [1, 2, 3])
    }

    @Test func repliesThatAreNotJSONOrNotTheSchemaAreUnusable() {
        #expect(throws: ProfileFactReplyError.notJSON) { try ProfileFactReply.parse("Sam is allergic to sesame.", for: Self.message) }
        #expect(throws: ProfileFactReplyError.self) { try ProfileFactReply.parse(#"[{"kind":"allergy"}]"#, for: Self.message) }
        #expect(throws: ProfileFactReplyError.self) { try ProfileFactReply.parse(#"{"facts":{}}"#, for: Self.message) }
        #expect(throws: ProfileFactReplyError.self) { try ProfileFactReply.parse(#"{"facts":[],"notes":"x"}"#, for: Self.message) }
    }

    @Test func theSchemaIsStrictAndNamesTheHousehold() throws {
        let schema = ProfileFactSchema.schema(members: ["Ines", "Sam"])
        let item = schema["properties"]?["facts"]?["items"]
        #expect(schema["additionalProperties"] == .bool(false))
        #expect(item?["additionalProperties"] == .bool(false))
        #expect(item?["required"] == .array(["kind", "subject", "value", "confidence", "removal", "quoted_span"].map(JSONValue.string)))
        #expect(item?["properties"]?["subject"]?["enum"] == nil, "a safety fact may name someone not listed yet")
        guard case .string(let described)? = item?["properties"]?["subject"]?["description"] else {
            Issue.record("subject has no description")
            return
        }
        #expect(described.contains("Ines, Sam"))
        #expect(item?["properties"]?["kind"]?["enum"] == .array(ProfileFactKind.allCases.map { .string($0.rawValue) }))
    }

    // MARK: The extractor around the reply

    static func extractor(_ script: ScriptedProvider.Script, calls: CallLog = CallLog()) throws -> ModelProfileFactExtractor {
        let router = ModelRouter(
            chains: [.extraction: [ScriptedProvider("a", "m", script, calls: calls)]], prices: AssistFixtures.prices,
            ledger: InMemoryBudgetLedger(), logger: AssistFixtures.logger)
        return ModelProfileFactExtractor(
            router: router, fallback: try ProfileFactExtractor.bundled(), vocabulary: try AllergenVocabulary.bundled(), logger: AssistFixtures.logger)
    }

    @Test func theModelsGroundedFactsAreUsedAndNamedAfterIt() async throws {
        let reading = try await Self.extractor(.answer(Self.reply(Self.fact(), Self.fact(span: "not in the message")), input: 300, output: 40))
            .read(Self.message)
        #expect(reading.extractor == "a:m")
        #expect(reading.facts.map { "\($0.kind.rawValue) \($0.subject) \($0.value)" } == ["allergy Sam sesame"])
    }

    @Test func invalidJSONOrAFailedModelFallsBackToTheRules() async throws {
        let rules = try await ProfileFactExtractor.bundled().read(Self.message)
        #expect(!rules.facts.isEmpty)
        let garbled = try await Self.extractor(.answer("Sure! Sam is allergic to sesame.", input: 300, output: 10)).read(Self.message)
        #expect(garbled == rules)
        #expect(garbled.extractor == "rules")
        let failed = try await Self.extractor(.fail(.server)).read(Self.message)
        #expect(failed == rules)
    }

    @Test func theRequestAsksForTheSchema() throws {
        let request = try Self.extractor(.answer("{}", input: 1, output: 1)).request(for: Self.message)
        #expect(request.phase == .extraction)
        #expect(request.responseSchema?.name == "profile_facts")
        #expect(request.system.contains("quoted_span"))
        #expect(request.prompt.contains(Self.message.text))
        let body = try JSONSerialization.jsonObject(with: JSONEncoder().encode(OpenAIChatProvider.Body(request: request, model: "gpt-4o-mini"))) as? [String: Any]
        let format = body?["response_format"] as? [String: Any]
        #expect(format?["type"] as? String == "json_schema")
        let named = format?["json_schema"] as? [String: Any]
        #expect(named?["name"] as? String == "profile_facts")
        #expect(named?["strict"] as? Bool == true)
        #expect(((named?["schema"] as? [String: Any])?["required"] as? [String]) == ["facts"])
    }

    // MARK: Choosing the extractor

    @Test func theRulesAreTheDefaultAndTheModelNeedsARealProvider() throws {
        let rules = try ProfileFactExtractor.bundled()
        let logger = AssistFixtures.logger
        #expect(try ProfileExtractorSelection.fromEnvironment([:], rules: rules, vocabulary: nil, logger: logger) is ProfileFactExtractor)
        #expect(
            try ProfileExtractorSelection.fromEnvironment(["HEARTH_PROFILE_EXTRACTOR": "rules"], rules: rules, vocabulary: nil, logger: logger)
                is ProfileFactExtractor)
        let model = try ProfileExtractorSelection.fromEnvironment(
            ["HEARTH_PROFILE_EXTRACTOR": "model", "HEARTH_MODEL_CHAIN_EXTRACTION": "openai:gpt-4o-mini,local", "HEARTH_OPENAI_API_KEY": "sk-x"],
            rules: rules, vocabulary: nil, logger: logger)
        #expect(model is ModelProfileFactExtractor)
        #expect(throws: ProfileExtractorConfigurationError.self) {
            try ProfileExtractorSelection.fromEnvironment(["HEARTH_PROFILE_EXTRACTOR": "model"], rules: rules, vocabulary: nil, logger: logger)
        }
        #expect(throws: ModelConfigurationError.missingAPIKey(provider: "openai", variable: "HEARTH_OPENAI_API_KEY")) {
            try ProfileExtractorSelection.fromEnvironment(
                ["HEARTH_PROFILE_EXTRACTOR": "model", "HEARTH_MODEL_CHAIN_EXTRACTION": "openai:gpt-4o-mini"], rules: rules, vocabulary: nil,
                logger: logger)
        }
        #expect(throws: ProfileExtractorConfigurationError.self) {
            try ProfileExtractorSelection.fromEnvironment(["HEARTH_PROFILE_EXTRACTOR": "llm"], rules: rules, vocabulary: nil, logger: logger)
        }
    }
}
