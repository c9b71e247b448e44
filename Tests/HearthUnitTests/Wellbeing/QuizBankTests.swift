import Foundation
import HearthDomain
import Testing

/// The offline quiz bank: the bundled file's rules, look-ups, picking and refusals.
@Suite struct QuizBankTests {
    static let bank = Result { try QuizBank.bundled() }
    static let tips = Result { try TipCatalogue.bundled() }

    static let fixtureTips = """
        {"source": "test", "tips": [
          {"id": "tip-a", "title": "Wait it out", "body": "Set a timer for ten minutes.", "triggers": ["stress"], "domains": []}]}
        """

    static let valid = """
        {"source": "test", "questions": [
          {"id": "sci_fi-001", "domain": "sci_fi", "prompt": "Who wrote Dune?",
           "choices": ["Frank Herbert", "Isaac Asimov", "Ursula K. Le Guin", "Arthur C. Clarke"], "answer": 0,
           "lesson": "Read one chapter and let the urge pass.", "tip_id": "tip-a"},
          {"id": "rdr2-001", "domain": "rdr2", "prompt": "Who leads the gang?",
           "choices": ["Micah Bell", "Dutch van der Linde"], "answer": 1,
           "lesson": "A plan is specific.", "tip_id": "tip-a"}]}
        """

    static func broken(_ original: String, _ replacement: String) -> String {
        let replaced = valid.replacingOccurrences(of: original, with: replacement)
        precondition(replaced != valid, "fixture no longer contains \(original)")
        return replaced
    }

    static func fixtureCatalogue() throws -> TipCatalogue {
        try TipCatalogue(data: Data(fixtureTips.utf8))
    }

    // MARK: - The bundled file

    @Test func theBundledBankLoads() throws {
        let bank = try Self.bank.get()
        #expect(bank.questions.count >= 231)
        #expect(bank.source.contains("Hearth"))
        for domain in WellbeingInterest.allCases {
            #expect(bank.questions(in: domain).count >= 21, "\(domain.rawValue)")
            #expect(bank.questions(in: domain).allSatisfy { $0.domain == domain }, "\(domain.rawValue)")
        }
    }

    @Test func idsAreUniqueAndCarryTheirDomain() throws {
        let questions = try Self.bank.get().questions
        #expect(Set(questions.map(\.id)).count == questions.count)
        for question in questions {
            #expect(question.id.wholeMatch(of: #/[a-z0-9_]+-[0-9]{3}/#) != nil, "\(question.id)")
            #expect(question.id.hasPrefix(question.domain.rawValue + "-"), "\(question.id)")
        }
    }

    @Test func everyAnswerIsOneOfFourDistinctChoicesAndEveryTipExists() throws {
        let tips = try Self.tips.get()
        for question in try Self.bank.get().questions {
            #expect(question.choices.count == 4, "\(question.id)")
            #expect(Set(question.choices.map { $0.lowercased() }).count == 4, "\(question.id)")
            #expect(question.choices.indices.contains(question.answer), "\(question.id)")
            #expect(tips.tip(id: question.tipID) != nil, "\(question.id): \(question.tipID)")
            #expect(!question.prompt.isEmpty && !question.lesson.isEmpty, "\(question.id)")
        }
    }

    /// A bank whose answers sit mostly in one position can be passed without reading.
    @Test func answerPositionsAreSpreadEvenly() throws {
        let questions = try Self.bank.get().questions
        for position in 0..<4 {
            let share = Double(questions.count { $0.answer == position }) / Double(questions.count)
            #expect(share > 0.2 && share < 0.3, "position \(position): \(share)")
        }
    }

    @Test func lessonsAreOneSentence() throws {
        for question in try Self.bank.get().questions {
            #expect(question.lesson.hasSuffix("."), "\(question.id)")
            #expect(!question.lesson.dropLast().contains(". "), "\(question.id)")
        }
    }

    @Test func knownFactsCarryTheRightAnswer() throws {
        let bank = try Self.bank.get()
        func answer(_ prompt: String) throws -> String {
            let question = try #require(bank.questions.first { $0.prompt == prompt }, "\(prompt)")
            return question.choices[question.answer]
        }
        #expect(try answer("In which year was Real Madrid founded?") == "1902")
        #expect(try answer("What is the name of Real Madrid's home stadium?") == "Santiago Bernabéu")
        #expect(try answer("At which address does Sherlock Holmes live?") == "221B Baker Street")
        #expect(try answer("What is standard tuning on a six-string guitar, from the lowest string to the highest?") == "E A D G B E")
        #expect(try answer("In which year did Apollo 11 land on the Moon?") == "1969")
    }

    @Test func lookupsFindQuestionsByIdAndDomain() throws {
        let bank = try Self.bank.get()
        let question = try #require(bank.questions(in: .sherlockHolmes).first)
        #expect(bank.question(id: question.id) == question)
        #expect(bank.question(id: "sherlock_holmes-999") == nil)
        #expect(bank.questions(in: .sciFi).map(\.id) == bank.questions.filter { $0.domain == .sciFi }.map(\.id))
    }

    // MARK: - Picking

    @Test func pickIsDeterministicForTheSameInputs() throws {
        let bank = try Self.bank.get()
        let first = bank.pick(domain: .sciFi, count: 5, excluding: [], seed: 42)
        #expect(first.count == 5)
        #expect(first == bank.pick(domain: .sciFi, count: 5, excluding: [], seed: 42))
        #expect(first.allSatisfy { $0.domain == .sciFi })
        let others = (43..<53).map { bank.pick(domain: .sciFi, count: 5, excluding: [], seed: $0).map(\.id) }
        #expect(others.contains { $0 != first.map(\.id) }, "the seed changes the order")
    }

    @Test func pickNeverRepeatsAQuestion() throws {
        let bank = try Self.bank.get()
        for domain in WellbeingInterest.allCases {
            for seed in UInt64(0)..<20 {
                let ids = bank.pick(domain: domain, count: 10, excluding: [], seed: seed).map(\.id)
                #expect(Set(ids).count == ids.count, "\(domain.rawValue), seed \(seed)")
            }
        }
    }

    @Test func pickSkipsSeenQuestions() throws {
        let bank = try Self.bank.get()
        let pool = bank.questions(in: .harryPotter).map(\.id)
        let seen = Set(pool.prefix(pool.count - 6))
        let picked = bank.pick(domain: .harryPotter, count: 5, excluding: seen, seed: 7).map(\.id)
        #expect(picked.count == 5)
        #expect(seen.isDisjoint(with: picked))
        // Seen questions are removed from the seed's order, not reshuffled around.
        let full = bank.pick(domain: .harryPotter, count: pool.count, excluding: [], seed: 7).map(\.id)
        #expect(picked == Array(full.filter { !seen.contains($0) }.prefix(5)))
    }

    @Test func pickFillsWithSeenQuestionsOnlyOnceUnseenOnesRunOut() throws {
        let bank = try Self.bank.get()
        let pool = bank.questions(in: .rdr2).map(\.id)
        let seen = Set(pool.dropFirst(2))
        let picked = bank.pick(domain: .rdr2, count: 5, excluding: seen, seed: 3).map(\.id)
        #expect(picked.count == 5)
        #expect(Set(picked.prefix(2)) == Set(pool.prefix(2)))
        #expect(Set(picked).count == 5)

        let everything = bank.pick(domain: .rdr2, count: 4, excluding: Set(pool), seed: 3)
        #expect(everything.map(\.id) == bank.pick(domain: .rdr2, count: 4, excluding: [], seed: 3).map(\.id))
    }

    @Test func pickReturnsAtMostTheDomainAndNothingForNoCount() throws {
        let bank = try Self.bank.get()
        let pool = bank.questions(in: .guitarBasics)
        let all = bank.pick(domain: .guitarBasics, count: 1000, excluding: [], seed: 1)
        #expect(Set(all.map(\.id)) == Set(pool.map(\.id)))
        #expect(all.count == pool.count)
        #expect(bank.pick(domain: .guitarBasics, count: 0, excluding: [], seed: 1).isEmpty)
        #expect(bank.pick(domain: .guitarBasics, count: -2, excluding: [], seed: 1).isEmpty)
    }

    @Test func aDomainWithoutQuestionsPicksNothing() throws {
        let bank = try QuizBank(data: Data(Self.valid.utf8), tips: try Self.fixtureCatalogue())
        #expect(bank.pick(domain: .harryPotter, count: 3, excluding: [], seed: 0).isEmpty)
        #expect(bank.questions(in: .harryPotter).isEmpty)
    }

    // MARK: - Fixtures

    @Test func acceptsAMinimalValidFileAndEncodesSnakeCase() throws {
        let bank = try QuizBank(data: Data(Self.valid.utf8), tips: try Self.fixtureCatalogue())
        #expect(bank.questions.map(\.id) == ["sci_fi-001", "rdr2-001"])
        let question = try #require(bank.question(id: "rdr2-001"))
        #expect(question.domain == .rdr2 && question.answer == 1 && question.tipID == "tip-a")
        let json = String(decoding: try JSONEncoder().encode(question), as: UTF8.self)
        #expect(json.contains("\"tip_id\":\"tip-a\"") && json.contains("\"domain\":\"rdr2\""))
        #expect(try JSONDecoder().decode(QuizQuestion.self, from: Data(json.utf8)) == question)
    }

    struct Malformed: Sendable, CustomStringConvertible {
        let problem: String
        let json: String
        let question: String
        let field: String
        var description: String { problem }
    }

    static let malformedFiles: [Malformed] = [
        Malformed(problem: "answer past the choices", json: broken(#""answer": 1"#, #""answer": 2"#), question: "rdr2-001", field: "answer"),
        Malformed(problem: "negative answer", json: broken(#""answer": 0"#, #""answer": -1"#), question: "sci_fi-001", field: "answer"),
        Malformed(problem: "answer as text", json: broken(#""answer": 0"#, #""answer": "0""#), question: "sci_fi-001", field: "answer"),
        Malformed(
            problem: "repeated choice", json: broken(#"["Micah Bell", "Dutch van der Linde"]"#, #"["Micah Bell", "micah  bell"]"#),
            question: "rdr2-001", field: "choices"),
        Malformed(problem: "one choice", json: broken(#"["Micah Bell", "Dutch van der Linde"]"#, #"["Micah Bell"]"#), question: "rdr2-001", field: "choices"),
        Malformed(
            problem: "five choices",
            json: broken(#""Arthur C. Clarke"]"#, #""Arthur C. Clarke", "H. G. Wells"]"#), question: "sci_fi-001", field: "choices"),
        Malformed(problem: "empty choice", json: broken(#""Micah Bell""#, #""""#), question: "rdr2-001", field: "choices"),
        Malformed(problem: "empty prompt", json: broken(#""Who wrote Dune?""#, #"" ""#), question: "sci_fi-001", field: "prompt"),
        Malformed(problem: "missing lesson", json: broken(#""lesson": "A plan is specific.", "#, ""), question: "rdr2-001", field: "lesson"),
        Malformed(problem: "unknown domain", json: broken(#""domain": "rdr2""#, #""domain": "rdr3""#), question: "rdr2-001", field: "domain"),
        Malformed(problem: "id of another domain", json: broken(#""id": "rdr2-001""#, #""id": "sci_fi-002""#), question: "sci_fi-002", field: "id"),
        Malformed(problem: "repeated id", json: broken(#""id": "rdr2-001", "domain": "rdr2""#, #""id": "sci_fi-001", "domain": "sci_fi""#), question: "sci_fi-001", field: "id"),
        Malformed(problem: "no id", json: broken(#""id": "rdr2-001", "#, ""), question: "questions[1]", field: "id"),
        Malformed(
            problem: "unknown tip", json: broken(#""A plan is specific.", "tip_id": "tip-a""#, #""A plan is specific.", "tip_id": "tip-z""#),
            question: "rdr2-001", field: "tip_id"),
        Malformed(problem: "misspelt key", json: broken(#""tip_id": "tip-a"}]}"#, #""tip_id": "tip-a", "tipid": "x"}]}"#), question: "rdr2-001", field: "tipid"),
        Malformed(problem: "repeated prompt", json: broken(#""Who leads the gang?""#, #""who wrote  dune?""#), question: "rdr2-001", field: "prompt"),
    ]

    @Test(arguments: malformedFiles)
    func malformedQuestionsAreRefusedNamingTheQuestionAndField(_ file: Malformed) throws {
        let tips = try Self.fixtureCatalogue()
        let error = #expect(throws: QuizBankError.self, "\(file.problem)") {
            try QuizBank(data: Data(file.json.utf8), tips: tips)
        }
        guard case .invalidQuestion(let question, let field, _)? = error else {
            Issue.record("\(file.problem): expected an invalid question, got \(String(describing: error))")
            return
        }
        #expect(question == file.question, "\(file.problem)")
        #expect(field == file.field, "\(file.problem)")
    }

    @Test func anAnswerOutOfRangeIsExplained() throws {
        let json = Self.broken(#""answer": 1"#, #""answer": 2"#)
        let error = #expect(throws: QuizBankError.self) { try QuizBank(data: Data(json.utf8), tips: try Self.fixtureCatalogue()) }
        #expect(error == .invalidQuestion(question: "rdr2-001", field: "answer", reason: "2 is not the index of a choice (0...1)"))
        #expect(error?.description.contains("quiz_bank.json") == true)
    }

    @Test func aFileThatIsNotABankIsUnreadable() throws {
        let tips = try Self.fixtureCatalogue()
        for json in [#"[{"id": "rdr2-001"}]"#, #"{"questions": []}"#, #"{"source": "x", "questions": {}}"#, "not json"] {
            let error = #expect(throws: QuizBankError.self, "\(json)") { try QuizBank(data: Data(json.utf8), tips: tips) }
            guard case .unreadable(let file, _)? = error else {
                Issue.record("\(json): expected unreadable, got \(String(describing: error))")
                continue
            }
            #expect(file == "quiz_bank.json")
        }
    }
}
