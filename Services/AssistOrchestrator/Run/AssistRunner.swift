import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import Logging

/// Runs one claimed request from start to `done`: opens the run, streams `context`, safety
/// precheck, the mode's flow, exactly one terminal event (`final`, `refusal` or `error`), the
/// accounting (`assist.run_completed`), then `done`; and waits until Kafka holds all of it.
struct AssistRunner: Sendable {
    let sink: RunEventSink
    let router: ModelRouter
    let safety: SafetyGate
    let meals: MealsFlow
    let chores: ChoresFlow
    let routines: RoutinesFlow
    let assistant: AssistantFlow
    let summary: SummaryFlow
    let settings: OrchestratorSettings
    let logger: Logger

    private func flow(for mode: AssistMode) -> any AssistFlow {
        switch mode {
        case .meals: meals
        case .chores: chores
        case .routines: routines
        }
    }

    /// Returns once every event of the run is acknowledged, or the publishing failed (logged).
    func run(_ request: IntakeRequest, metadata: EventMetadata, started: ContinuousClock.Instant, waitedMs: Int? = nil) async {
        switch request {
        case .plan(let plan): await run(plan, metadata: metadata, started: started, waitedMs: waitedMs)
        case .assistant(let message): await run(message, metadata: metadata, started: started, waitedMs: waitedMs)
        case .summary(let summary): await run(summary, metadata: metadata, started: started, waitedMs: waitedMs)
        }
    }

    func run(_ request: AssistRequested, metadata: EventMetadata, started: ContinuousClock.Instant, waitedMs: Int? = nil) async {
        // Redacted again although the gateway already did: the event may come from elsewhere.
        let goal = safety.redact(request.goal)
        let opening = AssistRunStarted(
            runId: request.runId, userId: request.userId, householdId: request.householdId, mode: request.mode,
            goal: goal, days: request.days, startDate: request.startDate)
        await frame(opening, metadata: metadata, started: started, waitedMs: waitedMs) { emitter, tools, usage in
            try await emitter.emit(.context, .object([
                "household_id": request.householdId.map { .string($0.uuidString.lowercased()) } ?? .null,
                "prefs": try JSONValue(encoding: request.prefs),
                "mode": .string(request.mode),
                "days": .int(request.days),
                "start_date": .string(request.startDate),
            ]))
            let input = try makeInput(request, goal: goal)
            return try await flow(for: input.mode).run(input, tools: tools, emitter: emitter, usage: &usage)
        }
    }

    func run(_ request: AssistantMessageRequestedV3, metadata: EventMetadata, started: ContinuousClock.Instant, waitedMs: Int? = nil) async {
        let text = safety.redact(request.text)
        let zone = LocalTime.zone(named: request.timeZone) ?? .gmt
        let opening = AssistRunStarted(
            runId: request.runId, userId: request.userId, householdId: request.householdId, mode: AssistantFlow.mode,
            goal: text, days: 0, startDate: CalendarDay(request.requestedAt, in: zone).isoDate)
        await frame(opening, metadata: metadata, started: started, waitedMs: waitedMs) { emitter, tools, usage in
            try await assistant.run(request, text: text, tools: tools, emitter: emitter, usage: &usage)
        }
    }

    func run(_ request: SummaryRequestedV2, metadata: EventMetadata, started: ContinuousClock.Instant, waitedMs: Int? = nil) async {
        let notes = request.parentNotes.map(safety.redact)
        let days = (CalendarDay(isoDate: request.to)?.daysSinceEpoch ?? 0) - (CalendarDay(isoDate: request.from)?.daysSinceEpoch ?? 0) + 1
        let opening = AssistRunStarted(
            runId: request.runId, userId: request.userId, householdId: request.householdId, mode: SummaryFlow.mode,
            goal: notes ?? "", days: max(1, days), startDate: request.from)
        await frame(opening, metadata: metadata, started: started, waitedMs: waitedMs) { emitter, tools, usage in
            try await emitter.emit(.context, .object([
                "mode": .string(SummaryFlow.mode), "child_id": .string(request.childId.uuidString.lowercased()),
                "from": .string(request.from), "to": .string(request.to),
            ]))
            // The parent's notes meet the same rules as any goal: a request for medical advice ends the run.
            if let notes, !notes.isEmpty { _ = try safety.precheck(goal: notes, domain: SummaryFlow.mode, childAges: []) }
            return try await summary.run(request, notes: notes, tools: tools, emitter: emitter, usage: &usage)
        }
    }

    /// What every run shares around its flow: `assist.run_started`, exactly one terminal event
    /// (`final` from `body`, or `refusal` / `error`), `assist.run_completed`, `done`, and the wait
    /// for Kafka's acknowledgements.
    private func frame(
        _ opening: AssistRunStarted, metadata: EventMetadata, started: ContinuousClock.Instant, waitedMs: Int?,
        body: (RunEmitter, FlowTools, inout ModelUsage) async throws -> JSONValue
    ) async {
        let emitter = RunEmitter(
            runId: opening.runId, sink: sink, correlationId: metadata.correlationId,
            causationId: metadata.id.uuidString.lowercased(), started: started)
        let claimedMs = emitter.elapsedMs
        var usage = ModelUsage()
        var outcome = RunOutcome.failed
        var logger = logger
        logger[metadataKey: "run_id"] = "\(opening.runId.uuidString.lowercased())"
        logger[metadataKey: "correlation_id"] = "\(metadata.correlationId)"
        do {
            try await emitter.publish(opening)
            do {
                let tools = FlowTools(
                    models: RunModels(
                        router: router,
                        budget: BudgetScope(
                            key: KeySubject.run(opening.runId),
                            limitCents: Double(settings.runBudgetCents), limitTokens: settings.runTokenLimit,
                            cap: settings.userMonthlySpendCents > 0
                                ? SpendCap.monthly(
                                    user: opening.userId.uuidString.lowercased(), limitCents: Double(settings.userMonthlySpendCents), at: Date())
                                : nil),
                        runId: opening.runId, userId: opening.userId),
                    safety: safety)
                let final = try await body(emitter, tools, &usage)
                try await emitter.emit(.final, final)
                outcome = .succeeded
            } catch let refused as RunRefused {
                try await emitter.emit(.refusal, .object(["text": .string(refused.text), "reason": .string(refused.key)]))
                outcome = .refused
            } catch {
                logger.error("run failed", metadata: ["error": "\(error)"])
                try await emitter.emit(.error, .object([
                    "message": .string(Self.userMessage(for: error)), "code": .string(Self.code(for: error)),
                ]))
            }
            let elapsed = emitter.elapsedMs
            try await emitter.publish(AssistRunCompleted(
                runId: opening.runId, outcome: outcome.rawValue, elapsedMs: elapsed,
                inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costCents: usage.costCents,
                modelsUsed: usage.modelsUsed, attempts: usage.attempts))
            try await emitter.emit(.done, .object(["elapsed_ms": .int(elapsed), "outcome": .string(outcome.rawValue)]), elapsedMs: elapsed)
            try await emitter.flush()
            let acknowledged = emitter.elapsedMs
            let events = await emitter.emittedCount
            // The latency breakdown (time in Kafka before pickup, to the claim, to `done`, to the
            // last acknowledgement) is what the stream's p50 is made of.
            logger.info("run finished", metadata: [
                "mode": "\(opening.mode)", "outcome": "\(outcome.rawValue)", "events": "\(events)",
                "waited_in_kafka_ms": "\(waitedMs.map(String.init) ?? "?")", "claimed_ms": "\(claimedMs)",
                "elapsed_ms": "\(elapsed)", "acknowledged_ms": "\(acknowledged)",
                "input_tokens": "\(usage.inputTokens)", "output_tokens": "\(usage.outputTokens)", "cost_cents": "\(usage.costCents)",
            ])
        } catch {
            logger.error("run events could not be published", metadata: ["error": "\(error)"])
        }
    }

    private func makeInput(_ request: AssistRequested, goal: String) throws -> RunInput {
        guard let mode = AssistMode(rawValue: request.mode) else { throw InvalidRunRequest(reason: "unknown mode \(request.mode)") }
        guard let start = CalendarDay(isoDate: request.startDate) else { throw InvalidRunRequest(reason: "bad start_date") }
        let safeGoal = try safety.precheck(goal: goal, mode: mode, childAges: request.prefs.kidsAges)
        return RunInput(
            runId: request.runId, userId: request.userId, householdId: request.householdId, mode: mode, goal: safeGoal,
            days: request.days, startDate: start, prefs: request.prefs,
            members: RunInput.members(from: request.members, prefs: request.prefs))
    }

    /// What the user reads in an `error` event: no internals, but enough to act on.
    static func userMessage(for error: any Error) -> String {
        switch error {
        case is ModelRouterError: "The assistant's models are unavailable right now. Please try again shortly."
        case is AllergenGuard.Violation: "The plan failed the allergen check, so it was not sent. Please try again."
        case let error as MealPlanningError: "\(error)"
        case let error as ChoreSchedulingError: "\(error)"
        case let error as InvalidRunRequest: "The request could not be run: \(error.reason)."
        default: "Something went wrong while planning. Please try again."
        }
    }

    static func code(for error: any Error) -> String {
        switch error {
        case is ModelRouterError: "model_unavailable"
        case is AllergenGuard.Violation: "allergen_check_failed"
        case is MealPlanningError, is ChoreSchedulingError, is InvalidRunRequest: "invalid_request"
        default: "internal"
        }
    }
}

/// How a run ended, as `agent_runs.state` records it.
enum RunOutcome: String, Sendable {
    case succeeded, refused, failed
}

struct InvalidRunRequest: Error {
    let reason: String
}
