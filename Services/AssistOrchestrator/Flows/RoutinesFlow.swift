import Foundation
import HearthDomain
import HearthEvents
import HearthStore

/// Routines: planning (focus) → `build_routines` → `RoutineBuilder` → synthesis.
struct RoutinesFlow: AssistFlow {
    let builder: RoutineBuilder

    func run(_ input: RunInput, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage) async throws -> JSONValue {
        try await emitter.emit(.token, .string("Building routines..."))
        let focus = try await tools.plan(
            input, prompt: Prompts.planning(input), offlineAnswer: OfflineQuery.routines(goal: input.goal, prefs: input.prefs),
            usage: &usage)

        let children = input.members.filter { !$0.isAdult }
        try await emitter.emit(.toolCall, .object([
            "name": .string("build_routines"),
            "args": .object(["kidsAges": .array(children.map { .int($0.age) }), "focus": .string(focus)]),
        ]))
        let plan = await OperationTracing.span("tool build_routines") { _ in builder.build(children: children) }
        try await emitter.emit(.toolResult, .object([
            "name": .string("build_routines"), "count": .int(plan.routines.count),
        ]))

        let outline = PlanText.routines(plan)
        let text = try await tools.synthesize(
            input, prompt: "Write age-appropriate routines. Goal: \(input.goal)\nFocus: \(focus)\n\(outline)",
            offlineAnswer: outline, emitter: emitter, usage: &usage)
        // Only routines that passed the postcheck reach the household's calendar.
        for routine in plan.routines {
            try await emitter.publish(Self.scheduled(routine, input: input))
        }
        return .object([
            "plan_text": .string(text),
            "routines": .array(plan.routines.map { routine in
                .object([
                    "name": .string(routine.name), "kind": .string(routine.kind.rawValue), "child": .string(routine.child),
                    "age": .int(routine.age), "band": .string(routine.band), "minutes": .int(routine.totalMinutes),
                    "steps": (try? JSONValue(encoding: routine.steps)) ?? .array([]),
                ])
            }),
            "without_routine": try JSONValue(encoding: plan.withoutRoutine),
        ])
    }
}

extension RoutinesFlow {
    /// Routine ids are derived from the household (or the user without one), the child and the
    /// kind: a new plan replaces the child's morning or bedtime routine rather than adding one.
    static let routineNamespace = UUID(uuidString: "9d4c2b1e-7a3f-4c55-8e0b-5f1d6a2c3b47")!

    static func scheduled(_ routine: ChildRoutine, input: RunInput) -> RoutineScheduled {
        let owner = (input.householdId ?? input.userId).uuidString.lowercased()
        let minutes = routine.totalMinutes
        return RoutineScheduled(
            routineId: NameBasedUUID.make(namespace: routineNamespace, name: "\(owner)|\(routine.child.lowercased())|\(routine.kind.rawValue)"),
            householdId: input.householdId, userId: input.userId, runId: input.runId, child: routine.child, age: routine.age,
            kind: routine.kind.rawValue, name: routine.name,
            startsAt: RoutineClock.startTime(kind: routine.kind, age: routine.age, minutes: minutes),
            startDate: input.startDate.isoDate, minutes: minutes,
            steps: routine.steps.map { RoutineStepPlan(title: $0.title, minutes: $0.minutes) }, rrule: "FREQ=DAILY", timeZone: nil)
    }
}
