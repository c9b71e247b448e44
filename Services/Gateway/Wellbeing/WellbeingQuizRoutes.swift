import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import Hummingbird

/// Quizzes: `POST /v1/wellbeing/quizzes {domain?}` starts one with a few questions,
/// `POST …/quizzes/{id}/submit {answers}` evaluates the answered ones (score, feedback, the tips
/// earned, which join the feed), `POST …/quizzes/{id}/next` adds more for as long as the user
/// wants, `GET …/quizzes/{id}` and `GET …/quizzes/{id}/tips`. The questions come from the
/// offline bank, or from a model with the bank behind it (`WellbeingQuizWriter`).
struct WellbeingQuizRoutes: Sendable {
    let space: WellbeingSpace
    let writer: WellbeingQuizWriter

    static let questionsPerRound = 3

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("quizzes") { request, context in try await start(request, context: context) }
        routes.get("quizzes/{id}") { request, context in try await show(request, context: context) }
        routes.post("quizzes/{id}/submit") { request, context in try await submit(request, context: context) }
        routes.post("quizzes/{id}/next") { request, context in try await next(request, context: context) }
        routes.get("quizzes/{id}/tips") { request, context in try await tips(request, context: context) }
    }

    struct StartBody: Decodable {
        var domain: String?
    }

    /// The domain asked for; else the user's interest least recently quizzed; else any domain,
    /// least recently quizzed.
    static func domain(asked: String?, interests: [String], lastByDomain: [String: Date]) throws -> WellbeingInterest {
        if let asked {
            guard let domain = WellbeingInterest(rawValue: asked) else {
                throw APIError.invalid("domain", "domain must be one of \(WellbeingInterest.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return domain
        }
        let pool = interests.compactMap(WellbeingInterest.init(rawValue:))
        let candidates = pool.isEmpty ? WellbeingInterest.allCases : pool
        return candidates.min { (lastByDomain[$0.rawValue] ?? .distantPast, $0.rawValue) < (lastByDomain[$1.rawValue] ?? .distantPast, $1.rawValue) }!
    }

    func start(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let body = try await JSONRequestBody.decode(StartBody.self, from: request, context: context)
        let settings = try await space.settings(of: user)
        let history = try await space.readModel.quizHistory(of: user)
        let domain = try Self.domain(asked: body.domain, interests: settings.interests, lastByDomain: history.lastByDomain)
        let quizId = UUID()
        let triggers = try await recentTriggers(of: user)
        let written = try await writer.questions(
            domain: domain, count: Self.questionsPerRound, avoiding: history.asked, triggers: triggers, idPrefix: "q-\(quizId.uuidString.prefix(8).lowercased())-1",
            user: user)
        try await space.publish(
            WellbeingQuizQuestionsAdded(
                quizId: quizId, userId: user, domain: domain.rawValue, writtenBy: written.writtenBy, questions: try JSONValueEncoder().encode(written.questions),
                at: Date()),
            context: context)
        var answer = try await view(quizId, user: user)
        answer.status = .created
        return answer
    }

    func recentTriggers(of user: UUID) async throws -> [WellbeingTrigger] {
        WellbeingTrigger.strongest(in: try await space.readModel.triggerCounts(of: user, days: 14))
    }

    func quiz(_ context: HearthRequestContext, user: UUID) async throws -> StoredQuiz {
        guard let quiz = try await space.readModel.quiz(try context.uuidParameter("id"), of: user) else { throw APIError.notFound("quiz") }
        return quiz
    }

    /// The quiz as the user sees it: answers hidden until a question is answered.
    func view(_ quizId: UUID, user: UUID) async throws -> TrackingJSON {
        guard let quiz = try await space.readModel.quiz(quizId, of: user) else { throw APIError.notFound("quiz") }
        let questions: [JSONValue] = quiz.questions.map { stored in
            var fields: [String: JSONValue] = [
                "id": .string(stored.question.id), "prompt": .string(stored.question.prompt), "choices": .array(stored.question.choices.map(JSONValue.string)),
                "answered": .bool(stored.chosen != nil), "written_by": .string(stored.writtenBy),
            ]
            if let chosen = stored.chosen {
                fields["chosen"] = .number(Double(chosen))
                fields["answer"] = .number(Double(stored.question.answer))
                fields["lesson"] = .string(stored.question.lesson)
            }
            return .object(fields)
        }
        let answered = quiz.questions.filter { $0.chosen != nil }
        return TrackingJSON(value: .object([
            "quiz_id": .string(quiz.quizId.uuidString.lowercased()), "domain": .string(quiz.domain),
            "domain_name": .string(WellbeingInterest(rawValue: quiz.domain)?.displayName ?? quiz.domain),
            "questions": .array(questions), "answered": .number(Double(answered.count)),
            "score": .number(Double(answered.filter { $0.chosen == $0.question.answer }.count)),
            "next_url": .string("/v1/wellbeing/quizzes/\(quiz.quizId.uuidString.lowercased())/next"),
        ]))
    }

    func show(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        try await view(try context.uuidParameter("id"), user: try space.user(context))
    }

    struct SubmitBody: Decodable {
        var answers: [String: Int]
    }

    func submit(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let quiz = try await quiz(context, user: user)
        let body = try await JSONRequestBody.decode(SubmitBody.self, from: request, context: context)
        guard !body.answers.isEmpty else { throw APIError.invalid("answers", "answers must name at least one question") }
        for id in body.answers.keys.sorted() where quiz.questions.contains(where: { $0.question.id == id && $0.chosen != nil }) {
            throw APIError(.conflict, code: "already_answered", message: "question \(id) was answered already", field: "answers.\(id)")
        }
        for id in body.answers.keys.sorted() where !quiz.questions.contains(where: { $0.question.id == id }) {
            throw APIError.invalid("answers.\(id)", "question \"\(id.prefix(80))\" is not in this quiz")
        }
        // Only the questions answered now are scored: the others wait for their own submit.
        let answeredNow = quiz.questions.map(\.question).filter { body.answers[$0.id] != nil }
        let evaluated = Result { () throws(QuizAnswerError) -> QuizResult in
            try QuizEvaluation.evaluate(answeredNow, answers: body.answers)
        }
        let result: QuizResult
        switch evaluated {
        case .success(let value):
            result = value
        case .failure(let error):
            throw APIError.invalid("answers.\(Self.question(of: error))", error.description)
        }
        let earned = result.tipsEarned
        try await space.publish(
            WellbeingQuizAnswered(quizId: quiz.quizId, userId: user, answers: body.answers, score: result.score, total: result.total, tipsEarned: earned, at: Date()),
            context: context)
        let inFeed = try await space.readModel.tipsInFeed(of: user)
        try await space.publish(tipIds: earned.filter { !inFeed.contains($0) }, to: user, reason: "quiz", context: context)
        let settings = try await space.settings(of: user)
        let badges = try await space.announceBadges(of: user, settings: settings, context: context)
        return TrackingJSON(value: .object([
            "quiz_id": .string(quiz.quizId.uuidString.lowercased()), "score": .number(Double(result.score)), "total": .number(Double(result.total)),
            "feedback": try JSONValueEncoder().encode(result.feedback),
            "tips_earned": .array(earned.compactMap { space.tips.tip(id: $0) }.map(space.tipJSON)),
            "badges_earned": .array(badges.map(space.badgeJSON)),
            "next_url": .string("/v1/wellbeing/quizzes/\(quiz.quizId.uuidString.lowercased())/next"),
        ]))
    }

    static func question(of error: QuizAnswerError) -> String {
        switch error {
        case .unknownQuestion(let id): return id
        case .choiceOutOfRange(let id, _, _): return id
        case .invalidQuestion(let id, _): return id
        }
    }

    func next(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let quiz = try await quiz(context, user: user)
        guard let domain = WellbeingInterest(rawValue: quiz.domain) else { throw APIError.notFound("quiz") }
        let history = try await space.readModel.quizHistory(of: user)
        let asked = Set(quiz.questions.map(\.question.id))
        // Model-written ids are numbered from the questions the quiz already has, so a short
        // round never makes the next one reuse its ids.
        let written = try await writer.questions(
            domain: domain, count: Self.questionsPerRound, avoiding: history.asked.union(asked),
            triggers: try await recentTriggers(of: user), idPrefix: "q-\(quiz.quizId.uuidString.prefix(8).lowercased())-\(quiz.questions.count + 1)", user: user)
        guard written.questions.contains(where: { !asked.contains($0.id) }) else {
            throw APIError(.conflict, code: "no_more_questions", message: "every question of this domain is in the quiz already; start another quiz")
        }
        try await space.publish(
            WellbeingQuizQuestionsAdded(
                quizId: quiz.quizId, userId: user, domain: domain.rawValue, writtenBy: written.writtenBy,
                questions: try JSONValueEncoder().encode(written.questions), at: Date()),
            context: context)
        return try await view(quiz.quizId, user: user)
    }

    /// The tips of the questions answered in this quiz.
    func tips(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let quiz = try await quiz(context, user: user)
        var ids: [String] = []
        for stored in quiz.questions where stored.chosen != nil && !ids.contains(stored.question.tipID) { ids.append(stored.question.tipID) }
        return TrackingJSON(value: .object(["tips": .array(ids.compactMap { space.tips.tip(id: $0) }.map(space.tipJSON))]))
    }
}
