import Foundation
import HearthDomain
import HearthEvents

/// A Hearth entry as a Calendar API v3 event resource.
struct GoogleEventBody: Encodable {
    struct Moment: Encodable {
        var dateTime: String?
        var date: String?
        var timeZone: String?
    }

    struct Extended: Encodable {
        let `private`: [String: String]
    }

    let id: String
    let summary: String
    let location: String?
    let description: String
    let start: Moment
    let end: Moment
    let recurrence: [String]?
    let extendedProperties: Extended

    init(_ entry: CalendarEntry) {
        id = GoogleEventId.derive(from: entry.id)
        summary = entry.title
        location = entry.location
        description = switch entry.source {
        case .chore: "Chore from Hearth"
        case .routine: "Routine from Hearth"
        case .event: "From Hearth (\(entry.kind))"
        }
        if entry.allDay {
            let first = LocalTime.components(of: entry.start, in: entry.timeZone).day
            var last = LocalTime.components(of: entry.end, in: entry.timeZone).day
            if last <= first { last = first.adding(days: 1) }
            start = Moment(date: first.isoDate)
            end = Moment(date: last.isoDate)
        } else {
            // The instant in UTC, and the zone Google should expand recurrences in.
            start = Moment(dateTime: Timestamp.format(entry.start), timeZone: entry.timeZone.identifier)
            end = Moment(dateTime: Timestamp.format(entry.end), timeZone: entry.timeZone.identifier)
        }
        recurrence = entry.rule.map { ["RRULE:" + $0.text(allDay: entry.allDay, timeZone: entry.timeZone)] }
        extendedProperties = Extended(private: [
            "hearth_id": entry.id.uuidString.lowercased(), "hearth_sequence": String(entry.sequence), "hearth_source": entry.source.rawValue,
        ])
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The domain entry of a calendar event's state.
    static func entry(id: UUID, state: CalendarEntryState, sequence: Int, at time: Date) -> CalendarEntry {
        CalendarEntry(
            id: id, source: .event, title: state.title, start: state.start, end: state.end, allDay: state.allDay,
            timeZone: LocalTime.zone(named: state.timeZone) ?? TimeZone(identifier: "UTC")!, kind: state.kind.rawValue,
            memberIds: state.memberIds, location: state.location, rule: state.rrule.flatMap { try? RecurrenceRule.parse($0) },
            sequence: sequence, updatedAt: time)
    }

    /// The domain entry of a child's daily routine; nil when its time or rule cannot be read.
    static func entry(routine: RoutineScheduled, at time: Date) -> CalendarEntry? {
        let zone = routine.timeZone.flatMap(LocalTime.zone(named:)) ?? TimeZone(identifier: "UTC")!
        guard let start = CalendarTimeInput.parseDateTime("\(routine.startDate)T\(routine.startsAt):00", in: zone),
              let rule = try? RecurrenceRule.parse(routine.rrule)
        else { return nil }
        return CalendarEntry(
            id: routine.routineId, source: .routine, title: "\(routine.name) (\(routine.child))", start: start,
            end: start.addingTimeInterval(TimeInterval(max(routine.minutes, 1) * 60)), allDay: false, timeZone: zone, kind: "routine",
            memberIds: [], location: nil, rule: rule, sequence: 0, updatedAt: time)
    }

    /// The domain entry of a chore occurrence; nil when its time cannot be read.
    static func entry(chore: ChoreScheduled, at time: Date) -> CalendarEntry? {
        let zone = chore.timeZone.flatMap(LocalTime.zone(named:)) ?? TimeZone(identifier: "UTC")!
        guard let start = CalendarTimeInput.parseDateTime(chore.at, in: zone) else { return nil }
        return CalendarEntry(
            id: chore.occurrenceId, source: .chore, title: "\(chore.chore) (\(chore.assignee))", start: start,
            end: start.addingTimeInterval(TimeInterval(max(chore.minutes, 1) * 60)), allDay: false, timeZone: zone, kind: "chore",
            memberIds: [], location: nil, rule: nil, sequence: 0, updatedAt: time)
    }
}
