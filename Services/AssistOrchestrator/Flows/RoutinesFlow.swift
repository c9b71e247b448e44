import HearthDomain
import HearthEvents

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
        let plan = builder.build(children: children)
        try await emitter.emit(.toolResult, .object([
            "name": .string("build_routines"), "count": .int(plan.routines.count),
        ]))

        let outline = PlanText.routines(plan)
        let text = try await tools.synthesize(
            input, prompt: "Write age-appropriate routines. Goal: \(input.goal)\nFocus: \(focus)\n\(outline)",
            offlineAnswer: outline, emitter: emitter, usage: &usage)
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
