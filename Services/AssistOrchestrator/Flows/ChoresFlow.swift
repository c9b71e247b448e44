import Foundation
import HearthDomain
import HearthEvents
import HearthStore

/// Chores: planning (which chores) → `schedule_chores` → `ChoreScheduler` → synthesis.
struct ChoresFlow: AssistFlow {
    let scheduler: ChoreScheduler

    func run(_ input: RunInput, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage) async throws -> JSONValue {
        try await emitter.emit(.token, .string("Scheduling chores..."))
        let focus = try await tools.plan(
            input, prompt: Prompts.planning(input), offlineAnswer: OfflineQuery.chores(goal: input.goal), usage: &usage)
        let selected = scheduler.selectChores(goal: focus, householdChores: nil)

        try await emitter.emit(.toolCall, .object([
            "name": .string("schedule_chores"),
            "args": .object([
                "chores": .strings(selected.chores.map(\.name)), "days": .int(input.days),
                "start_date": .string(input.startDate.isoDate), "members": .strings(input.members.map(\.name)),
            ]),
        ]))
        let schedule = try await OperationTracing.span("tool schedule_chores") { _ in
            try scheduler.schedule(ChoreScheduleRequest(members: input.members, goal: focus, days: input.days, startDate: input.startDate))
        }
        try await emitter.emit(.toolResult, .object([
            "name": .string("schedule_chores"), "count": .int(schedule.occurrences.count),
        ]))

        let text = try await tools.synthesize(
            input, prompt: "Summarise this chore schedule for a family, encouragingly:\n\(PlanText.chores(schedule))",
            offlineAnswer: PlanText.chores(schedule), emitter: emitter, usage: &usage)
        // Only a plan that passed the postcheck reaches the household's schedule.
        for occurrence in schedule.occurrences {
            try await emitter.publish(Self.scheduled(occurrence, input: input))
        }
        return .object([
            "plan_text": .string(text),
            "chores": try JSONValue(encoding: schedule.chores),
            "occurrences": .array(schedule.occurrences.map { occurrence in
                .object([
                    "chore": .string(occurrence.chore), "chore_id": .string(occurrence.choreId),
                    "assignee": .string(occurrence.assignee), "at": .string(occurrence.at), "minutes": .int(occurrence.minutes),
                ])
            }),
            "loads": try JSONValue(encoding: schedule.loads),
            "unassignable": try JSONValue(encoding: schedule.unassignable),
            "source": try JSONValue(encoding: schedule.source),
        ])
    }
}

extension ChoresFlow {
    /// Occurrence ids are derived from the run, the chore, its assignee and the day, so a run
    /// that is processed again schedules the same occurrences instead of new ones.
    static let occurrenceNamespace = UUID(uuidString: "5b1f7c8e-2f0a-4f57-9a53-0c6f3f4d2a11")!

    static func scheduled(_ occurrence: ChoreOccurrence, input: RunInput) -> ChoreScheduled {
        let name = "\(input.runId.uuidString.lowercased())|\(occurrence.choreId)|\(occurrence.assignee)|\(occurrence.date.isoDate)"
        return ChoreScheduled(
            occurrenceId: NameBasedUUID.make(namespace: occurrenceNamespace, name: name),
            householdId: input.householdId, userId: input.userId, runId: input.runId,
            chore: occurrence.chore, choreId: occurrence.choreId, assignee: occurrence.assignee,
            at: occurrence.at, date: occurrence.date.isoDate, minutes: occurrence.minutes, timeZone: nil)
    }
}
