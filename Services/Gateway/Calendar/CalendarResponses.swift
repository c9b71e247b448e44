import Foundation
import HearthDomain
import HearthEvents
import Hummingbird

/// One entry, or one occurrence of a recurring entry, as the API shows it. Times are RFC 3339
/// UTC; all-day entries also carry their local dates (`end_date` exclusive).
struct CalendarEntryBody: Encodable, Sendable {
    @LowercaseID var eventId: UUID
    let source: String
    let title: String
    let start: String
    let end: String
    let allDay: Bool
    let startDate: String?
    let endDate: String?
    let timeZone: String
    let kind: String
    let memberIds: [String]
    let assignee: String?
    let location: String?
    let rrule: String?
    let recurring: Bool
    let sequence: Int

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id"
        case source, title, start, end
        case allDay = "all_day"
        case startDate = "start_date"
        case endDate = "end_date"
        case timeZone = "time_zone"
        case kind
        case memberIds = "member_ids"
        case assignee, location, rrule, recurring, sequence
    }

    init(_ stored: StoredCalendarEntry, occurrence: Occurrence? = nil) {
        let entry = stored.domain
        let start = occurrence?.start ?? stored.start, end = occurrence?.end ?? stored.end
        eventId = stored.id
        source = stored.source.rawValue
        title = stored.title
        self.start = Timestamp.format(start)
        self.end = Timestamp.format(end)
        allDay = stored.allDay
        startDate = stored.allDay ? LocalTime.components(of: start, in: entry.timeZone).day.isoDate : nil
        endDate = stored.allDay ? LocalTime.components(of: end, in: entry.timeZone).day.isoDate : nil
        timeZone = stored.timeZone
        kind = stored.kind
        memberIds = stored.memberIds.map { $0.uuidString.lowercased() }
        assignee = stored.assignee
        location = stored.location
        rrule = stored.rrule
        recurring = stored.rrule != nil
        sequence = stored.sequence
    }
}

/// An entry of the same member at an overlapping time.
struct CalendarConflictBody: Encodable, Sendable {
    @LowercaseID var eventId: UUID
    let title: String
    let start: String
    let end: String
    let memberIds: [String]

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id"
        case title, start, end
        case memberIds = "member_ids"
    }

    init(_ conflict: CalendarConflict) {
        eventId = conflict.otherId
        title = conflict.otherTitle
        start = Timestamp.format(conflict.otherOccurrence.start)
        end = Timestamp.format(conflict.otherOccurrence.end)
        memberIds = conflict.memberIds.map { $0.uuidString.lowercased() }
    }
}

/// Answer of a create or update: the entry as written, its conflicts, and the event position.
struct CalendarWriteResponse: ResponseEncodable {
    @LowercaseID var eventId: UUID
    let sequence: Int
    let conflicts: [CalendarConflictBody]
    let position: String

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id"
        case sequence, conflicts, position
    }
}

/// 409 of `?reject_conflicts=true`: the usual error object plus the conflicts.
struct CalendarConflictRefusal: ResponseEncodable {
    struct Detail: Encodable {
        let code: String
        let message: String
        let requestId: String
        enum CodingKeys: String, CodingKey {
            case code, message
            case requestId = "request_id"
        }
    }
    let error: Detail
    let conflicts: [CalendarConflictBody]
}

struct CalendarListResponse: ResponseEncodable {
    let from: String
    let to: String
    let events: [CalendarEntryBody]
}
