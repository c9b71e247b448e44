import Foundation
import HearthDomain
import Testing

/// Reading a model's quiz reply: finding the JSON, holding it to the bank's rules, replacing tips.
@Suite struct ModelQuizParserTests {
    static let tips = Result { try TipCatalogue.bundled() }

    static let reply = """
        {"questions": [
          {"prompt": "Which note is the open 6th string in standard tuning?", "choices": ["E", "A", "D", "G"], "answer": 0,
           "lesson": "Start from the lowest, steadiest note.", "tip_id": "tip-042"},
          {"prompt": "How many strings does a standard guitar have?", "choices": ["Four", "Six", "Seven", "Twelve"],
           "answer": 1, "lesson": "Each string plays its part.", "tip_id": "tip-017"}]}
        """

    static func broken(_ original: String, _ replacement: String) -> String {
        let replaced = reply.replacingOccurrences(of: original, with: replacement)
        precondition(replaced != reply, "fixture no longer contains \(original)")
        return replaced
    }

    static func parse(_ text: String, domain: WellbeingInterest = .guitarBasics) throws -> [QuizQuestion] {
        try ModelQuizParser.parse(text, domain: domain, tips: try tips.get(), idPrefix: "gen-42")
    }

    @Test func acceptsABareObjectAndAssignsIdsAndDomain() throws {
        let questions = try Self.parse(Self.reply)
        #expect(questions.map(\.id) == ["gen-42-1", "gen-42-2"])
        #expect(questions.allSatisfy { $0.domain == .guitarBasics })
        #expect(questions[1].choices == ["Four", "Six", "Seven", "Twelve"])
        #expect(questions[1].answer == 1)
        #expect(questions.map(\.tipID) == ["tip-042", "tip-017"])
    }

    @Test func acceptsAFencedObjectWithProseAround() throws {
        let text = "Here is your quiz {as promised}:\n\n```json\n" + Self.reply + "\n```\n\nEnjoy, and {pause} when you need to!"
        #expect(try Self.parse(text) == Self.parse(Self.reply))
    }

    @Test func bracesInsideStringsDoNotEndTheObject() throws {
        let text = Self.broken("Each string plays its part.", "Each string {and chord} plays its \\\"part\\\".")
        #expect(try Self.parse(text)[1].lesson == "Each string {and chord} plays its \"part\".")
    }

    @Test func trimsSpacesAndIgnoresExtraFields() throws {
        let text = Self.broken(#""choices": ["E", "A""#, #""explanation": "open strings", "choices": ["  E ", "A""#)
            .replacingOccurrences(of: #""Start from"#, with: #""  Start from"#)
        let first = try #require(try Self.parse(text).first)
        #expect(first.choices[0] == "E")
        #expect(first.lesson == "Start from the lowest, steadiest note.")
    }

    @Test func anUnknownOrMissingTipIsReplacedByTheBestTipForTheDomain() throws {
        let tips = try Self.tips.get()
        let best = try #require(tips.bestTip(for: .guitarBasics))
        let unknown = try Self.parse(Self.broken(#""tip_id": "tip-042""#, #""tip_id": "tip-999""#))
        #expect(unknown[0].tipID == best.id)
        #expect(unknown[1].tipID == "tip-017")
        let missing = try Self.parse(Self.broken(#", "tip_id": "tip-042""#, ""))
        #expect(missing[0].tipID == best.id)
        let notAString = try Self.parse(Self.broken(#""tip_id": "tip-042""#, #""tip_id": 42"#))
        #expect(notAString[0].tipID == best.id)
        #expect(best.domains.contains(.guitarBasics))
    }

    @Test func parsedQuestionsMarkLikeBankQuestions() throws {
        let questions = try Self.parse(Self.reply)
        let result = try QuizEvaluation.evaluate(questions, answers: ["gen-42-1": 0, "gen-42-2": 0])
        #expect(result.score == 1)
        #expect(result.feedback[1].feedback == "Not quite: the answer is Six.")
    }

    struct Refused: Sendable, CustomStringConvertible {
        let problem: String
        let text: String
        let question: Int
        let field: String
        var description: String { problem }
    }

    static let refusedQuestions: [Refused] = [
        Refused(problem: "answer past the choices", text: broken(#""answer": 1"#, #""answer": 4"#), question: 1, field: "answer"),
        Refused(problem: "negative answer", text: broken(#""answer": 0"#, #""answer": -1"#), question: 0, field: "answer"),
        Refused(problem: "answer as a choice's text", text: broken(#""answer": 0"#, #""answer": "E""#), question: 0, field: "answer"),
        Refused(problem: "duplicate choices", text: broken(#"["E", "A", "D", "G"]"#, #"["E", "A", "d", "D"]"#), question: 0, field: "choices"),
        Refused(problem: "one choice", text: broken(#"["E", "A", "D", "G"]"#, #"["E"]"#), question: 0, field: "choices"),
        Refused(problem: "five choices", text: broken(#"["E", "A", "D", "G"]"#, #"["E", "A", "D", "G", "B"]"#), question: 0, field: "choices"),
        Refused(problem: "blank choice", text: broken(#"["E", "A", "D", "G"]"#, #"["E", "A", " ", "G"]"#), question: 0, field: "choices"),
        Refused(problem: "missing prompt", text: broken(#""prompt": "How many strings does a standard guitar have?", "#, ""), question: 1, field: "prompt"),
        Refused(problem: "empty lesson", text: broken(#""Each string plays its part.""#, #""""#), question: 1, field: "lesson"),
        Refused(
            problem: "repeated prompt",
            text: broken("How many strings does a standard guitar have?", "which note is the open 6th string in standard tuning?"),
            question: 1, field: "prompt"),
        Refused(problem: "question not an object", text: #"{"questions": ["Which note?"]}"#, question: 0, field: "-"),
    ]

    @Test(arguments: refusedQuestions)
    func questionsBreakingABankRuleAreRefused(_ case_: Refused) {
        let error = #expect(throws: ModelQuizError.self, "\(case_.problem)") { try Self.parse(case_.text) }
        guard case .invalidQuestion(let question, let field, _)? = error else {
            Issue.record("\(case_.problem): expected an invalid question, got \(String(describing: error))")
            return
        }
        #expect(question == case_.question, "\(case_.problem)")
        #expect(field == case_.field, "\(case_.problem)")
    }

    @Test func textWithoutAQuizIsRefused() {
        let texts = [
            "Sorry, I can't write a quiz about that.",
            "",
            #"{"quiz": "none"}"#,
            String(Self.reply.dropLast(3)),
            #"[{"prompt": "?"}]"#,
        ]
        for text in texts {
            let error = #expect(throws: ModelQuizError.self, "\(text)") { try Self.parse(text) }
            guard case .noQuiz? = error else {
                Issue.record("\(text): expected no quiz, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func aQuestionsMemberThatIsNotAShortListIsRefused() {
        let eleven = (1...11).map { #"{"prompt": "Q\#($0)?", "choices": ["a", "b"], "answer": 0, "lesson": "Pause."}"# }
        let texts = [#"{"questions": []}"#, #"{"questions": "none"}"#, #"{"questions": [\#(eleven.joined(separator: ","))]}"#]
        for text in texts {
            let error = #expect(throws: ModelQuizError.self, "\(text)") { try Self.parse(text) }
            guard case .invalidQuiz? = error else {
                Issue.record("\(text): expected an invalid quiz, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func anOverlongReplyIsRefused() {
        let text = Self.reply + String(repeating: " ", count: ModelQuizParser.maxReplyLength)
        #expect(throws: ModelQuizError.self) { try Self.parse(text) }
    }

    @Test func theSchemaIsJSONNamingEveryField() throws {
        let schema = try #require(
            try JSONSerialization.jsonObject(with: Data(ModelQuizParser.jsonSchema.utf8)) as? [String: Any])
        #expect(schema["required"] as? [String] == ["questions"])
        for field in ["\"prompt\"", "\"choices\"", "\"answer\"", "\"lesson\"", "\"tip_id\""] {
            #expect(ModelQuizParser.jsonSchema.contains(field), "\(field)")
        }
    }

    @Test func thePromptNamesTheDomainCountTriggersAndTips() throws {
        let tips = try Self.tips.get()
        let prompt = ModelQuizParser.prompt(domain: .rdr2, count: 3, triggers: [.lateNight, .stress, .lateNight], tips: tips)
        #expect(prompt.contains("Write 3 multiple-choice trivia questions about Red Dead Redemption 2"))
        #expect(prompt.contains("late_night, stress."))
        #expect(prompt.contains(ModelQuizParser.jsonSchema))
        #expect(prompt.contains("0-based"))
        let best = try #require(tips.bestTip(for: .rdr2, triggers: [.lateNight, .stress]))
        #expect(prompt.contains("- \(best.id): \(best.title)"))
    }

    @Test func thePromptClampsTheCountAndLeavesOutAnEmptyTriggerLine() throws {
        let tips = try Self.tips.get()
        let many = ModelQuizParser.prompt(domain: .sciFi, count: 50, triggers: [], tips: tips)
        #expect(many.contains("Write \(ModelQuizParser.maxQuestions) multiple-choice"))
        #expect(!many.contains("triggers to keep in mind"))
        let one = ModelQuizParser.prompt(domain: .sciFi, count: 0, triggers: [], tips: tips)
        #expect(one.contains("Write 1 multiple-choice trivia question about Science fiction"))
    }
}
