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
}
