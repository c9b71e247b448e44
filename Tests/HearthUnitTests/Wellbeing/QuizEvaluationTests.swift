import Foundation
import HearthDomain
import Testing

/// Marking a quiz: the score, the feedback lines, the tips earned and the refusals.
@Suite struct QuizEvaluationTests {
    static let quiz = [
        QuizQuestion(
            id: "q1", domain: .sciFi, prompt: "Which planet is Dune set on?", choices: ["Arrakis", "Tatooine", "Caladan"],
            answer: 0, lesson: "Plan for scarce moments.", tipID: "tip-004"),
        QuizQuestion(
            id: "q2", domain: .sciFi, prompt: "What is printed on the Guide?", choices: ["Keep Calm", "Don't Panic!"],
            answer: 1, lesson: "Urges pass.", tipID: "tip-001"),
        QuizQuestion(
            id: "q3", domain: .sciFi, prompt: "Who wrote Frankenstein?", choices: ["Mary Shelley", "Jane Austen"],
            answer: 0, lesson: "Be curious, not critical.", tipID: "tip-004"),
        QuizQuestion(
            id: "q4", domain: .sciFi, prompt: "Which pill does Neo take?", choices: ["The blue pill", "The red pill"],
            answer: 1, lesson: "Pause before choosing.", tipID: "tip-014"),
    ]

    @Test func scoresRightWrongAndUnansweredQuestions() throws {
        let result = try QuizEvaluation.evaluate(Self.quiz, answers: ["q1": 0, "q2": 0, "q3": 0])
        #expect(result.score == 2)
        #expect(result.total == 4)
        #expect(result.feedback.map(\.questionID) == ["q1", "q2", "q3", "q4"])
        #expect(result.feedback.map(\.correct) == [true, false, true, false])
        #expect(result.feedback.map(\.chosen) == [0, 0, 0, nil])
        #expect(result.feedback.map(\.correctAnswer) == [0, 1, 0, 1])
    }

    @Test func feedbackIsWarmShortAndNamesTheAnswer() throws {
        let result = try QuizEvaluation.evaluate(Self.quiz, answers: ["q1": 0, "q2": 0, "q3": 1])
        #expect(result.feedback[0].feedback == "Right: Arrakis.")
        // No second full stop after a choice that ends a sentence already.
        #expect(result.feedback[1].feedback == "Not quite: the answer is Don't Panic!")
        #expect(result.feedback[2].feedback == "Not quite: the answer is Mary Shelley.")
        #expect(result.feedback[3].feedback.hasSuffix("The red pill."))
        #expect(result.feedback[1].lesson == "Urges pass.")
        #expect(result.feedback[1].tipID == "tip-001")
    }

    @Test func everyAnsweredQuestionEarnsItsTipOnceInQuestionOrder() throws {
        let result = try QuizEvaluation.evaluate(Self.quiz, answers: ["q3": 1, "q2": 1, "q1": 1])
        #expect(result.tipsEarned == ["tip-004", "tip-001"])
        #expect(try QuizEvaluation.evaluate(Self.quiz, answers: ["q4": 0]).tipsEarned == ["tip-014"])
    }

    @Test func unansweredQuestionsEarnNothing() throws {
        let result = try QuizEvaluation.evaluate(Self.quiz, answers: [:])
        #expect(result.score == 0 && result.total == 4)
        #expect(result.tipsEarned.isEmpty)
        #expect(result.feedback.allSatisfy { $0.chosen == nil && !$0.correct })
    }

    @Test func anEmptyQuizScoresNothing() throws {
        #expect(try QuizEvaluation.evaluate([], answers: [:]) == QuizResult(score: 0, total: 0, feedback: [], tipsEarned: []))
    }

    @Test func anAnswerToAnUnknownQuestionIsRefusedNamingIt() {
        let error = #expect(throws: QuizAnswerError.self) {
            try QuizEvaluation.evaluate(Self.quiz, answers: ["q1": 0, "zz": 1, "q9": 0])
        }
        #expect(error == .unknownQuestion(id: "q9"))
        #expect(error?.description.contains("\"q9\"") == true)
    }

    @Test func aChoiceOutsideTheQuestionIsRefusedNamingIt() {
        let tooHigh = #expect(throws: QuizAnswerError.self) {
            try QuizEvaluation.evaluate(Self.quiz, answers: ["q1": 0, "q2": 2])
        }
        #expect(tooHigh == .choiceOutOfRange(question: "q2", chosen: 2, choiceCount: 2))
        let negative = #expect(throws: QuizAnswerError.self) {
            try QuizEvaluation.evaluate(Self.quiz, answers: ["q3": -1])
        }
        #expect(negative == .choiceOutOfRange(question: "q3", chosen: -1, choiceCount: 2))
    }

    @Test func aBrokenQuizIsRefused() {
        let twice = #expect(throws: QuizAnswerError.self) {
            try QuizEvaluation.evaluate([Self.quiz[0], Self.quiz[0]], answers: [:])
        }
        guard case .invalidQuestion(let question, _)? = twice else {
            Issue.record("expected an invalid question, got \(String(describing: twice))")
            return
        }
        #expect(question == "q1")
        let badKey = QuizQuestion(id: "q5", domain: .rdr2, prompt: "?", choices: ["a", "b"], answer: 2, lesson: ".", tipID: "t")
        #expect(throws: QuizAnswerError.self) { try QuizEvaluation.evaluate([badKey], answers: [:]) }
    }

    @Test func aResultEncodesSnakeCaseAndRoundTrips() throws {
        let result = try QuizEvaluation.evaluate(Self.quiz, answers: ["q1": 0])
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        for key in ["\"tips_earned\"", "\"question_id\"", "\"correct_answer\"", "\"tip_id\""] {
            #expect(json.contains(key), "\(key)")
        }
        #expect(try JSONDecoder().decode(QuizResult.self, from: Data(json.utf8)) == result)
    }

    @Test func bankQuestionsAnsweredCorrectlyScoreFull() throws {
        let bank = try QuizBank.bundled()
        let quiz = bank.pick(domain: .realMadrid, count: 5, excluding: [], seed: 11)
        let answers = Dictionary(uniqueKeysWithValues: quiz.map { ($0.id, $0.answer) })
        let result = try QuizEvaluation.evaluate(quiz, answers: answers)
        #expect(result.score == 5 && result.total == 5)
        #expect(result.feedback.allSatisfy { $0.feedback.hasPrefix("Right: ") })
        #expect(Set(result.tipsEarned) == Set(quiz.map(\.tipID)))
    }
}
