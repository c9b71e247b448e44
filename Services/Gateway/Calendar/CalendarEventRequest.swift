import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime

/// Body of `POST /v1/calendar/events` and `PUT /v1/calendar/events/{id}`.
struct CalendarEventRequest: Decodable {
    var title: String
    var start: String
    var end: String?
    var allDay: Bool?
    var timeZone: String?
    var kind: String?
    var memberIds: [UUID]?
    var location: String?
    var rrule: String?

    enum CodingKeys: String, CodingKey {
        case title, start, end
        case allDay = "all_day"
        case timeZone = "time_zone"
        case kind
        case memberIds = "member_ids"
        case location, rrule
    }

    static let maxTitleLength = 200
    static let maxLocationLength = 500
    static let maxMembers = 50

    /// The entry this body describes, or a 400 naming the first bad field.
    func validated() throws -> CalendarEntryState {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxTitleLength).contains(title.unicodeScalars.count) else {
            throw APIError.invalid("title", "title must be 1 to \(Self.maxTitleLength) characters")
        }
        let kind: CalendarEventKind
        if let text = self.kind {
            guard let parsed = CalendarEventKind(rawValue: text) else {
                throw APIError.invalid("kind", "kind must be appointment, call, training or adhoc")
            }
            kind = parsed
        } else {
            kind = .appointment
        }
        let times: CalendarTimeInput
        do {
            times = try CalendarTimeInput(start: start, end: end, allDay: allDay ?? false, timeZone: timeZone, rrule: rrule)
        } catch {
            throw APIError.invalid(error.field, error.message)
        }
        let location = location?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let location, location.unicodeScalars.count > Self.maxLocationLength {
            throw APIError.invalid("location", "location must be at most \(Self.maxLocationLength) characters")
        }
        var members: [UUID] = []
        for member in memberIds ?? [] where !members.contains(member) { members.append(member) }
        guard members.count <= Self.maxMembers else { throw APIError.invalid("member_ids", "at most \(Self.maxMembers) members") }
        return CalendarEntryState(
            title: title, start: times.start, end: times.end, allDay: times.allDay, timeZone: timeZone ?? "UTC", kind: kind,
            memberIds: members, location: location?.isEmpty == true ? nil : location,
            rrule: times.rule?.text(allDay: times.allDay, timeZone: times.timeZone))
    }
}
