import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import Hummingbird

/// Guided audio and scenario practice:
/// `POST /v1/wellbeing/exercises/audio?theme=` writes a script and speaks it,
/// `GET …/exercises/{id}` and `GET …/exercises/{id}/audio` (the WAV), `POST …/exercises/{id}/complete`;
/// `POST …/simulations/start {theme?}`, `POST …/simulations/{id}/choose {choice}`, `GET …/simulations/{id}`.
struct WellbeingExerciseRoutes: Sendable {
    let space: WellbeingSpace
    let audio: GuidedAudio
    let scenarios: WellbeingScenarioWriter

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("exercises/audio") { request, context in try await createAudio(request, context: context) }
        routes.get("exercises/{id}") { request, context in try await showExercise(request, context: context) }
        routes.get("exercises/{id}/audio") { request, context in try await audioFile(request, context: context) }
        routes.post("exercises/{id}/complete") { request, context in try await complete(request, context: context) }
        routes.post("simulations/start") { request, context in try await startSimulation(request, context: context) }
        routes.get("simulations/{id}") { request, context in try await showSimulation(request, context: context) }
        routes.post("simulations/{id}/choose") { request, context in try await choose(request, context: context) }
    }

    // MARK: guided audio

    func createAudio(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let themes = space.audio.themes.map(\.theme)
        let theme = request.uri.queryParameters.get("theme") ?? themes[0]
        guard let script = space.audio.script(theme: theme) else {
            throw APIError.invalid("theme", "theme must be one of \(themes.joined(separator: ", "))")
        }
        let hash = GuidedAudio.hash(of: script)
        let recording = try await audio.recording(of: script, hash: hash)
        let id = UUID()
        try await space.publish(
            WellbeingAudioExerciseCreated(
                exerciseId: id, userId: user, theme: script.theme, title: script.title, script: try JSONValueEncoder().encode(script), scriptHash: hash,
                durationSec: (recording.durationSec * 10).rounded() / 10, writtenBy: "template", at: Date()),
            context: context)
        var answer = try await exerciseView(id, user: user)
        answer.status = .created
        return answer
    }

    func exerciseView(_ id: UUID, user: UUID) async throws -> TrackingJSON {
        guard let exercise = try await space.readModel.exercise(id, of: user) else { throw APIError.notFound("exercise") }
        let settings = try await space.settings(of: user)
        var fields: [String: JSONValue] = [
            "exercise_id": .string(id.uuidString.lowercased()), "type": .string(exercise.kind),
            "created_at": .string(Timestamp.format(exercise.createdAt)),
            "completed_at": exercise.completedAt.map { .string(Timestamp.format($0)) } ?? .null,
        ]
        if exercise.kind == "audio", let script = exercise.script {
            fields["title"] = .string(exercise.title ?? script.title)
            fields["theme"] = .string(script.theme)
            fields["duration_sec"] = .number(exercise.durationSec ?? script.estimatedDurationSeconds(wordsPerMinute: GuidedAudio.wordsPerMinute))
            fields["audio_url"] = .string("/v1/wellbeing/exercises/\(id.uuidString.lowercased())/audio")
            fields["content_type"] = .string("audio/wav")
            fields["autoplay"] = .bool(!settings.noAutoplay)
            fields["written_by"] = .string(exercise.writtenBy ?? "template")
            fields["payload"] = .object([
                "script": .array(script.segments.map { .object(["text": .string($0.text), "pause_sec": .number(Double($0.pauseSeconds))]) }),
                "words": .number(Double(script.wordCount)), "voice": .string(GuidedAudio.voice), "words_per_minute": .number(Double(GuidedAudio.wordsPerMinute)),
            ])
        }
        return TrackingJSON(value: .object(fields))
    }

    func showExercise(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        try await exerciseView(try context.uuidParameter("id"), user: try space.user(context))
    }

    /// The recording; spoken again from the stored script when the cache does not have it (a
    /// fresh database rebuilt from the events).
    func audioFile(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try space.user(context)
        guard let exercise = try await space.readModel.exercise(try context.uuidParameter("id"), of: user), let script = exercise.script else {
            throw APIError.notFound("exercise")
        }
        let recording = try await audio.recording(of: script, hash: exercise.scriptHash ?? GuidedAudio.hash(of: script))
        var headers = HTTPFields()
        headers[.contentType] = "audio/wav"
        headers[.cacheControl] = "private, max-age=86400"
        headers[.contentDisposition] = "inline; filename=\"\(script.theme).wav\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: recording.audio)))
    }

    func complete(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let id = try context.uuidParameter("id")
        guard let exercise = try await space.readModel.exercise(id, of: user), exercise.kind == "audio" else { throw APIError.notFound("exercise") }
        var badges: [WellbeingProgress.Badge] = []
        if exercise.completedAt == nil {
            try await space.publish(WellbeingExerciseCompleted(exerciseId: id, userId: user, kind: "audio", at: Date()), context: context)
            badges = try await space.announceBadges(of: user, settings: try await space.settings(of: user), context: context)
        }
        guard case .object(var fields) = try await exerciseView(id, user: user).value else { throw APIError.notFound("exercise") }
        fields["badges_earned"] = .array(badges.map(space.badgeJSON))
        return TrackingJSON(value: .object(fields))
    }

    // MARK: scenario practice

    struct StartBody: Decodable {
        var theme: String?
    }

    func startSimulation(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let body = try await JSONRequestBody.decode(StartBody.self, from: request, context: context)
        if let theme = body.theme, space.scenarios.scenario(theme: theme) == nil {
            throw APIError.invalid("theme", "theme must be one of \(space.scenarios.scenarios.map(\.theme).sorted().joined(separator: ", "))")
        }
        let counts = try await space.readModel.triggerCounts(of: user, days: 30)
        let played = try await space.readModel.recentScenarios(of: user, limit: 5)
        let id = UUID()
        let chosen = try await scenarios.scenario(
            theme: body.theme, recentTriggers: counts, excluding: played, seed: WellbeingQuizWriter.seed(user: user, asked: played.count), user: user,
            simulationId: id)
        let written = chosen.writtenBy == "authored" ? nil : try JSONValueEncoder().encode(chosen.scenario)
        try await space.publish(
            WellbeingSimulationStartedV2(
                simulationId: id, userId: user, scenarioId: chosen.scenario.id, scenario: written, writtenBy: chosen.writtenBy, at: Date()),
            context: context)
        var answer = try await simulationView(id, user: user, badges: [])
        answer.status = .created
        return answer
    }

    /// The stored simulation replayed through its scenario.
    func session(_ id: UUID, user: UUID) async throws -> (StoredSimulation, PracticeScenario, ScenarioSession) {
        guard let stored = try await space.readModel.simulation(id, of: user),
              let scenario = stored.written ?? space.scenarios.scenario(id: stored.scenarioId)
        else {
            throw APIError.notFound("simulation")
        }
        var session = ScenarioSession.start(scenario)
        for choice in stored.choices {
            do { try session.choose(choice, in: scenario) } catch { throw APIError.notFound("simulation (its scenario has changed)") }
        }
        return (stored, scenario, session)
    }

    func simulationView(_ id: UUID, user: UUID, badges: [WellbeingProgress.Badge]) async throws -> TrackingJSON {
        let (stored, scenario, session) = try await session(id, user: user)
        var fields: [String: JSONValue] = [
            "simulation_id": .string(id.uuidString.lowercased()),
            "scenario": .object([
                "id": .string(scenario.id), "title": .string(scenario.title), "theme": .string(scenario.theme), "written_by": .string(stored.writtenBy),
            ]),
            "step": try JSONValueEncoder().encode(session.step(in: scenario)),
            "started_at": .string(Timestamp.format(stored.startedAt)),
            "finished": .bool(session.isFinished(in: scenario)),
            "reflection": try session.reflection(in: scenario).map { try JSONValueEncoder().encode($0) } ?? .null,
        ]
        if !badges.isEmpty { fields["badges_earned"] = .array(badges.map(space.badgeJSON)) }
        return TrackingJSON(value: .object(fields))
    }

    func showSimulation(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        try await simulationView(try context.uuidParameter("id"), user: try space.user(context), badges: [])
    }

    struct ChooseBody: Decodable {
        var choice: String
    }

    func choose(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let id = try context.uuidParameter("id")
        let body = try await JSONRequestBody.decode(ChooseBody.self, from: request, context: context)
        let loaded = try await session(id, user: user)
        let stored = loaded.0, scenario = loaded.1
        var session = loaded.2
        if session.isFinished(in: scenario) {
            throw APIError(.conflict, code: "simulation_finished", message: "the scenario has ended; start another", field: "choice")
        }
        do {
            try session.choose(body.choice, in: scenario)
        } catch {
            throw APIError.invalid("choice", error.description)
        }
        let finished = session.isFinished(in: scenario)
        let now = Date()
        try await space.publish(
            WellbeingSimulationChoiceMade(simulationId: id, userId: user, step: stored.choices.count + 1, choiceId: body.choice, finished: finished, at: now),
            context: context)
        var badges: [WellbeingProgress.Badge] = []
        if finished {
            try await space.publish(WellbeingExerciseCompleted(exerciseId: id, userId: user, kind: "scenario", at: now), context: context)
            badges = try await space.announceBadges(of: user, settings: try await space.settings(of: user), context: context)
        }
        return try await simulationView(id, user: user, badges: badges)
    }
}
