import Foundation
import HearthEvents

/// The calendar entries that events stand for, read in one place: the gateway's calendar read
/// model and calendar-sync's Google mirror both build their entries here, so a chore or routine
/// lands at the same instant in both.
extension CalendarEntry {
    /// A calendar event's state after a change.
    public init(id: UUID, state: CalendarEntryState, sequence: Int, at time: Date) {
        self.init(
            id: id, source: .event, title: state.title, start: state.start, end: state.end, allDay: state.allDay,
            timeZone: LocalTime.zone(named: state.timeZone) ?? TimeZone(identifier: "UTC")!, kind: state.kind.rawValue,
            memberIds: state.memberIds, location: state.location, rule: state.rrule.flatMap { try? RecurrenceRule.parse($0) },
            sequence: sequence, updatedAt: time)
    }

    /// A chore occurrence, titled with its assignee ("Dishes (Sam)"); nil when its local time
    /// cannot be read. The time is local to the event's zone, UTC when it names none.
    public init?(chore: ChoreScheduled, at time: Date) {
        let zone = chore.timeZone.flatMap(LocalTime.zone(named:)) ?? TimeZone(identifier: "UTC")!
        guard let start = CalendarTimeInput.parseDateTime(chore.at, in: zone) else { return nil }
        self.init(
            id: chore.occurrenceId, source: .chore, title: "\(chore.chore) (\(chore.assignee))", start: start,
            end: start.addingTimeInterval(TimeInterval(max(chore.minutes, 1) * 60)), allDay: false, timeZone: zone, kind: "chore",
            memberIds: [], location: nil, rule: nil, sequence: 0, updatedAt: time)
    }

    /// A child's routine: a recurring entry from its first day at its local start time; nil when
    /// its time or its rule cannot be read.
    public init?(routine: RoutineScheduled, at time: Date) {
        let zone = routine.timeZone.flatMap(LocalTime.zone(named:)) ?? TimeZone(identifier: "UTC")!
        guard let start = CalendarTimeInput.parseDateTime("\(routine.startDate)T\(routine.startsAt):00", in: zone),
              let rule = try? RecurrenceRule.parse(routine.rrule)
        else { return nil }
        self.init(
            id: routine.routineId, source: .routine, title: "\(routine.name) (\(routine.child))", start: start,
            end: start.addingTimeInterval(TimeInterval(max(routine.minutes, 1) * 60)), allDay: false, timeZone: zone, kind: "routine",
            memberIds: [], location: nil, rule: rule, sequence: 0, updatedAt: time)
    }
}
