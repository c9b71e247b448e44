/// How one question went: what was chosen, the right answer, and the lesson and tip it leads to.
public struct QuizAnswerFeedback: Codable, Sendable, Equatable {
    public let questionID: String
    /// Nil when the question was left unanswered.
    public let chosen: Int?
    public let correctAnswer: Int
    public let correct: Bool
    /// One short, warm line naming the right answer ("Right: Arrakis.").
    public let feedback: String
    public let lesson: String
    public let tipID: String

    public init(questionID: String, chosen: Int?, correctAnswer: Int, correct: Bool, feedback: String, lesson: String, tipID: String) {
        self.questionID = questionID
        self.chosen = chosen
        self.correctAnswer = correctAnswer
        self.correct = correct
        self.feedback = feedback
        self.lesson = lesson
        self.tipID = tipID
    }

    enum CodingKeys: String, CodingKey {
        case questionID = "question_id"
        case chosen
        case correctAnswer = "correct_answer"
        case correct, feedback, lesson
        case tipID = "tip_id"
    }
}

/// A marked quiz.
public struct QuizResult: Codable, Sendable, Equatable {
    public let score: Int
    /// Every question of the quiz, answered or not.
    public let total: Int
    /// One per question, in the quiz's order.
    public let feedback: [QuizAnswerFeedback]
    /// Tip ids of the answered questions, each once, in question order. A wrong answer earns its
    /// tip as much as a right one: the quiz is practice, not a test to pass.
    public let tipsEarned: [String]

    public init(score: Int, total: Int, feedback: [QuizAnswerFeedback], tipsEarned: [String]) {
        self.score = score
        self.total = total
        self.feedback = feedback
        self.tipsEarned = tipsEarned
    }

    enum CodingKeys: String, CodingKey {
        case score, total, feedback
        case tipsEarned = "tips_earned"
    }
}

/// Why a set of answers could not be marked. Each case names the question, so a client can
/// point at the answer it sent wrongly.
public enum QuizAnswerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An answer was sent for a question that is not in the quiz.
    case unknownQuestion(id: String)
    /// `chosen` is not an index of the question's `choiceCount` choices.
    case choiceOutOfRange(question: String, chosen: Int, choiceCount: Int)
    /// The quiz itself is broken (a question twice, an answer key outside the choices); the
    /// caller built it by hand rather than from the bank or the parser.
    case invalidQuestion(question: String, reason: String)

    public var description: String {
        switch self {
        case .unknownQuestion(let id):
            return "question \"\(id)\" is not in this quiz"
        case .choiceOutOfRange(let question, let chosen, let choiceCount):
            return "question \"\(question)\": choice \(chosen) is not between 0 and \(choiceCount - 1)"
        case .invalidQuestion(let question, let reason):
            return "question \"\(question)\": \(reason)"
        }
    }
}

public enum QuizEvaluation {
    /// Marks `answers` (question id → chosen index) against `questions`. Questions without an
    /// answer count towards the total but earn nothing.
    public static func evaluate(_ questions: [QuizQuestion], answers: [String: Int]) throws(QuizAnswerError) -> QuizResult {
        var ids: Set<String> = []
        for question in questions {
            guard ids.insert(question.id).inserted else {
                throw .invalidQuestion(question: question.id, reason: "appears twice in the quiz")
            }
            guard question.choices.indices.contains(question.answer) else {
                throw .invalidQuestion(question: question.id, reason: "its answer \(question.answer) is not the index of a choice")
            }
        }
        // Sorted, so the same bad request always names the same question.
        if let unknown = answers.keys.filter({ !ids.contains($0) }).sorted().first {
            throw .unknownQuestion(id: unknown)
        }

        var feedback: [QuizAnswerFeedback] = []
        var tipsEarned: [String] = []
        for question in questions {
            let chosen = answers[question.id]
            if let chosen, !question.choices.indices.contains(chosen) {
                throw .choiceOutOfRange(question: question.id, chosen: chosen, choiceCount: question.choices.count)
            }
            let correct = chosen == question.answer
            let answerText = sentence(question.choices[question.answer])
            let line: String
            switch chosen {
            case .none: line = "Skipped: the answer is \(answerText)"
            case .some where correct: line = "Right: \(answerText)"
            case .some: line = "Not quite: the answer is \(answerText)"
            }
            feedback.append(QuizAnswerFeedback(
                questionID: question.id, chosen: chosen, correctAnswer: question.answer, correct: correct,
                feedback: line, lesson: question.lesson, tipID: question.tipID))
            if chosen != nil, !tipsEarned.contains(question.tipID) { tipsEarned.append(question.tipID) }
        }
        return QuizResult(score: feedback.count(where: \.correct), total: questions.count, feedback: feedback, tipsEarned: tipsEarned)
    }

    /// A choice that already ends a sentence ("Don't Panic!") gets no second full stop.
    private static func sentence(_ choice: String) -> String {
        guard let last = choice.last, ".!?".contains(last) else { return choice + "." }
        return choice
    }
}
