import AsyncHTTPClient
import Foundation
import HearthConfiguration
import HearthDomain
import HearthEvents
import Logging
import Metrics

/// Writes a round of quiz questions for the wellbeing space.
///
/// Offline (the default) they come from the bank: questions of the domain the user has not been
/// asked, picked deterministically for the user's history. With `HEARTH_WELLBEING_WRITER=model`
/// the router's synthesis chain writes them from the domain and the user's recent trigger words
/// (never their notes); the reply must pass `ModelQuizParser`'s checks, a bad reply is asked for
/// once more, and a second bad one — or no provider, or an exhausted budget — is replaced by the
/// bank, so a quiz never fails because a model did.
public struct WellbeingQuizWriter: Sendable {
    public struct Written: Sendable {
        public var questions: [QuizQuestion]
        /// `bank`, or the model as `provider:model`.
        public var writtenBy: String
    }

    let bank: QuizBank
    let tips: TipCatalogue
    let router: ModelRouter?
    let logger: Logger

    public static let maxOutputTokens = 1_200

    public init(bank: QuizBank, tips: TipCatalogue, router: ModelRouter?, logger: Logger) {
        self.bank = bank
        self.tips = tips
        self.router = router
        self.logger = logger
    }

    /// - Parameters:
    ///   - avoiding: ids of questions the user was already asked.
    ///   - user: whose budget a model call is charged to, and whose history seeds the bank's pick.
    public func questions(
        domain: WellbeingInterest, count: Int, avoiding: Set<String>, triggers: [WellbeingTrigger], idPrefix: String, user: UUID
    ) async throws -> Written {
        if let router {
            for attempt in 1...2 {
                do {
                    let response = try await router.complete(
                        ModelRequest(
                            phase: .synthesis, system: "You write short, accurate multiple-choice trivia questions, each tied to one lesson about managing urges.",
                            prompt: ModelQuizParser.prompt(domain: domain, count: count, triggers: triggers, tips: tips),
                            maxOutputTokens: Self.maxOutputTokens, temperature: 0.4, runId: "wellbeing-quiz/\(idPrefix)", offlineAnswer: ""),
                        budget: Self.budget(user: user), onToken: { _ in })
                    guard response.provider != "local" else { break }
                    let questions = try ModelQuizParser.parse(response.text, domain: domain, tips: tips, idPrefix: idPrefix)
                    guard !questions.isEmpty else { throw ModelQuizError.noQuiz(reason: "no questions") }
                    return Written(questions: Array(questions.prefix(count)), writtenBy: "\(response.provider):\(response.model)")
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    Counter(label: "hearth_wellbeing_quiz_model_failures_total", dimensions: [("attempt", "\(attempt)")]).increment()
                    logger.warning("model quiz refused", metadata: ["attempt": "\(attempt)", "reason": "\(String(describing: error).prefix(300))"])
                }
            }
        }
        let seed = Self.seed(user: user, asked: avoiding.count)
        return Written(questions: bank.pick(domain: domain, count: count, excluding: avoiding, seed: seed), writtenBy: "bank")
    }

    /// 20 cents and 100,000 tokens per user and UTC day.
    static func budget(user: UUID, now: Date = Date()) -> BudgetScope {
        BudgetScope(key: "wellbeing/\(user.uuidString.lowercased())/\(Timestamp.format(now).prefix(10))", limitCents: 20, limitTokens: 100_000)
    }

    /// FNV-1a of the user and how many questions they have seen: the same history picks the same
    /// questions, a new round picks new ones.
    public static func seed(user: UUID, asked: Int) -> UInt64 {
        StableHash.fnv1a("\(user.uuidString.lowercased())/\(asked)")
    }
}

/// A wellbeing-writer configuration that cannot work, reported at start-up.
public struct WellbeingWriterConfigurationError: Error, CustomStringConvertible {
    public var description: String
}

/// `HEARTH_WELLBEING_WRITER`: `bank` (the default: the offline content) or `model` (the router's
/// synthesis chain, which must name a real provider; the bank stays behind it).
public enum WellbeingWriterSelection {
    public static func router(_ env: EnvironmentReader, httpClient: HTTPClient = .shared, logger: Logger) throws -> ModelRouter? {
        let choice = env.trimmed("HEARTH_WELLBEING_WRITER")?.lowercased() ?? ""
        switch choice {
        case "", "bank":
            return nil
        case "model":
            return try ModelRouter.requiringProvider(env, phase: .synthesis, setting: "HEARTH_WELLBEING_WRITER", httpClient: httpClient, logger: logger,
                refusal: { WellbeingWriterConfigurationError(description: $0) })
        default:
            throw WellbeingWriterConfigurationError(description: "HEARTH_WELLBEING_WRITER must be bank or model, not \(choice)")
        }
    }
}
