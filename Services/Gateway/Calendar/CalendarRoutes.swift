import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `POST /v1/calendar/events`, `PUT`/`DELETE /v1/calendar/events/{id}` and
/// `GET /v1/calendar/events?from=&to=`: the household calendar.
///
/// Writes wait until `calendar_entries` has applied them, so the next read, conflict check or
/// feed already shows the change.
struct CalendarRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: CalendarReadModel
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    static let projection = "calendar_entries"
    /// The widest window one list request may expand recurrences over.
    static let maxWindow: TimeInterval = 366 * 86_400

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("calendar/events") { request, context in try await create(request, context: context) }
        routes.get("calendar/events") { request, context in try await list(request, context: context) }
        routes.put("calendar/events/{id}") { request, context in try await update(request, context: context) }
        routes.delete("calendar/events/{id}") { request, context in try await delete(request, context: context) }
    }

    func create(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let entry = try await JSONRequestBody.decode(CalendarEventRequest.self, from: request, context: context).validated()
        let household = try await membership.household(of: user, for: request, coach: .calendarWrite)
        try await requireMembers(entry.memberIds, of: household)
        let id = EventIdentity.newId("calendar_entry")
        let conflicts = try await conflicts(of: id, entry, user: user, household: household)
        if rejectsConflicts(request), !conflicts.isEmpty { return try refusal(conflicts, context: context) }
        let event = CalendarEventCreated(eventId: id, householdId: household, createdBy: user, entry: entry, sequence: 0)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        return try CalendarWriteResponse(eventId: id, sequence: 0, conflicts: conflicts.map(CalendarConflictBody.init), position: position.description)
            .response(from: request, context: context)
    }

    func update(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let existing = try await visibleEntry(request, context: context, user: user)
        guard existing.source == .event else {
            throw APIError(.conflict, code: "read_only", message: "chore occurrences are changed by rescheduling the chore")
        }
        let entry = try await JSONRequestBody.decode(CalendarEventRequest.self, from: request, context: context).validated()
        try await requireMembers(entry.memberIds, of: existing.householdId)
        let conflicts = try await conflicts(of: existing.id, entry, user: user, household: existing.householdId)
        if rejectsConflicts(request), !conflicts.isEmpty { return try refusal(conflicts, context: context) }
        let sequence = existing.sequence + 1
        let event = CalendarEventUpdated(eventId: existing.id, householdId: existing.householdId, updatedBy: user, entry: entry, sequence: sequence)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        return try CalendarWriteResponse(eventId: existing.id, sequence: sequence, conflicts: conflicts.map(CalendarConflictBody.init), position: position.description)
            .response(from: request, context: context)
    }

    func delete(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let existing = try await visibleEntry(request, context: context, user: user)
        guard existing.source == .event else {
            throw APIError(.conflict, code: "read_only", message: "chore occurrences are removed by rescheduling the chore")
        }
        let event = CalendarEventDeleted(eventId: existing.id, householdId: existing.householdId, deletedBy: user, sequence: existing.sequence + 1)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        return Response(status: .noContent)
    }

    func list(_ request: Request, context: HearthRequestContext) async throws -> CalendarListResponse {
        let user = try context.authenticatedUser()
        let from = try Self.time(request, "from")
        let to = try Self.time(request, "to")
        guard to > from else { throw APIError.invalid("to", "to must be after from") }
        guard to.timeIntervalSince(from) <= Self.maxWindow else { throw APIError.invalid("to", "the window may span at most 366 days") }
        let household = try await membership.household(of: user, for: request, coach: .calendarRead)
        var items: [(Date, CalendarEntryBody)] = []
        for stored in try await readModel.entries(of: user, household: household) {
            for occurrence in stored.domain.occurrences(from: from, to: to) {
                items.append((occurrence.start, CalendarEntryBody(stored, occurrence: occurrence)))
            }
        }
        items.sort { ($0.0, $0.1.eventId.uuidString) < ($1.0, $1.1.eventId.uuidString) }
        return CalendarListResponse(from: Timestamp.format(from), to: Timestamp.format(to), events: items.map(\.1))
    }

    /// The entry named by `{id}` if the user may see it; 404 otherwise (also for deleted ones).
    private func visibleEntry(_ request: Request, context: HearthRequestContext, user: UUID) async throws -> StoredCalendarEntry {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("id", "id must be a UUID")
        }
        guard let entry = try await readModel.entry(id), !entry.deleted else { throw APIError.notFound("calendar event") }
        // The entry says its household: a user of several needs no header to change it.
        let visible = if let household = entry.householdId {
            try await membership.role(of: user, in: household) != nil
        } else {
            entry.ownerUserId == user
        }
        guard visible else { throw APIError.notFound("calendar event") }
        return entry
    }

    private func conflicts(of id: UUID, _ state: CalendarEntryState, user: UUID, household: UUID?) async throws -> [CalendarConflict] {
        guard !state.memberIds.isEmpty else { return [] }
        let candidate = CalendarEntry(
            id: id, source: .event, title: state.title, start: state.start, end: state.end, allDay: state.allDay,
            timeZone: LocalTime.zone(named: state.timeZone) ?? TimeZone(identifier: "UTC")!, kind: state.kind.rawValue,
            memberIds: state.memberIds, location: state.location, rule: state.rrule.flatMap { try? RecurrenceRule.parse($0) },
            sequence: 0, updatedAt: state.start)
        // Chore occurrences and routines name their assignee; the member of that name is busy then too.
        let members = try await readModel.memberIdsByName(in: household)
        let others = try await readModel.entries(of: user, household: household).map { stored in
            var entry = stored.domain
            if stored.source != .event, let assignee = stored.assignee { entry.memberIds = members[assignee.lowercased()] ?? [] }
            return entry
        }
        return ConflictDetector.conflicts(of: candidate, among: others)
    }

    /// `member_ids` must name members of the entry's household (`POST /v1/households/{id}/members`).
    private func requireMembers(_ ids: [UUID], of household: UUID?) async throws {
        let unknown = try await readModel.unknownMembers(ids, of: household)
        guard unknown.isEmpty else {
            throw APIError.invalid("member_ids", "not members of your household: \(unknown.map { $0.uuidString.lowercased() }.joined(separator: ", "))")
        }
    }

    private func rejectsConflicts(_ request: Request) -> Bool {
        request.uri.queryParameters.get("reject_conflicts").map { $0 == "true" || $0 == "1" } ?? false
    }

    private func refusal(_ conflicts: [CalendarConflict], context: HearthRequestContext) throws -> Response {
        let body = CalendarConflictRefusal(
            error: .init(code: "conflict", message: "the event overlaps \(conflicts.count) other event(s) of the same member",
                         requestId: context.requestId),
            conflicts: conflicts.map(CalendarConflictBody.init))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .conflict, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body))))
    }

    /// `from`/`to`: RFC 3339 date-times or `YYYY-MM-DD` (midnight UTC).
    static func time(_ request: Request, _ name: String) throws -> Date {
        guard let text = request.uri.queryParameters.get(name), !text.isEmpty else {
            throw APIError.invalid(name, "\(name) is required (RFC 3339 date-time or YYYY-MM-DD)")
        }
        if let day = CalendarDay(isoDate: text) { return Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch * 86_400)) }
        guard let date = CalendarTimeInput.parseDateTime(text, in: TimeZone(identifier: "UTC")!) else {
            throw APIError.invalid(name, "\(name) must be an RFC 3339 date-time or YYYY-MM-DD")
        }
        return date
    }
}
