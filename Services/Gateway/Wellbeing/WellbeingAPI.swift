import Foundation
import HearthAssist
import HearthDomain
import HearthKnowledge
import HearthRuntime
import Hummingbird

/// The wellbeing space in the gateway (`/v1/wellbeing/...`): a signed-in user's own check-ins,
/// quizzes, guided audio, scenario practice, tips, dashboard, weekly reflection and settings.
/// Nobody else reads any of it: every read is by the caller's own id.
struct WellbeingAPI: Sendable {
    let checkIns: WellbeingCheckInRoutes
    let quizzes: WellbeingQuizRoutes
    let exercises: WellbeingExerciseRoutes
    let insights: WellbeingInsightRoutes
    /// The scheduled run: weekly reflections and check-in nudges.
    let schedule: PeriodicService

    static func make(
        host: ServiceHost, users: UserReadModel, consistency: ReadConsistency, writerRouter: ModelRouter?, scheduleInterval: Duration,
        embeddings: any EmbeddingProvider
    ) throws -> WellbeingAPI {
        let tips = try TipCatalogue.bundled()
        let bank = try QuizBank.bundled()
        let space = WellbeingSpace(
            publisher: host.publisher, readModel: WellbeingReadModel(client: host.postgres, logger: host.logger), consistency: consistency, users: users,
            bank: bank, tips: tips, scenarios: try ScenarioLibrary.bundled(), audio: try AudioScriptLibrary.bundled(), safety: try SafetyPolicy.load(),
            similarity: TipSimilarity(provider: embeddings, tips: tips, logger: host.logger))
        return WellbeingAPI(
            checkIns: WellbeingCheckInRoutes(space: space),
            quizzes: WellbeingQuizRoutes(space: space, writer: WellbeingQuizWriter(bank: bank, tips: tips, router: writerRouter, logger: host.logger)),
            exercises: WellbeingExerciseRoutes(
                space: space, audio: GuidedAudio(client: host.postgres, tools: ToolRunner(), logger: host.logger),
                scenarios: WellbeingScenarioWriter(library: space.scenarios, router: writerRouter, logger: host.logger)),
            insights: WellbeingInsightRoutes(space: space),
            schedule: WellbeingSchedule(
                space: space, writer: WellbeingRecapWriter(router: writerRouter, safety: space.safety, logger: host.logger), client: host.postgres,
                logger: host.logger
            ).service(every: scheduleInterval))
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        let group = routes.group("wellbeing")
        checkIns.register(on: group)
        quizzes.register(on: group)
        exercises.register(on: group)
        insights.register(on: group)
    }
}
