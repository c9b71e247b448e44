import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import Hummingbird

/// Check-ins: `POST /v1/wellbeing/checkins`, `GET …/checkins?from=&to=&cursor=&limit=`,
/// `GET|PATCH|DELETE …/checkins/{id}`.
///
/// A check-in whose note or trigger context says the user is in danger is kept (it is theirs) but
/// met with the crisis resources and nothing else: no quiz, no tip, no badge. Otherwise an urge of
/// 7 or more is answered with a quiz offer, and the feed gets the tip that best fits what was said.
struct WellbeingCheckInRoutes: Sendable {
    let space: WellbeingSpace

    static let maxNote = 4_000
    static let maxTriggerContext = 500
    static let quizOfferUrge = 7

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("checkins") { request, context in try await create(request, context: context) }
        routes.get("checkins") { request, context in try await list(request, context: context) }
        routes.get("checkins/{id}") { request, context in try await show(request, context: context) }
        routes.patch("checkins/{id}") { request, context in try await edit(request, context: context) }
        routes.delete("checkins/{id}") { request, context in try await delete(request, context: context) }
    }

    struct Body: Decodable {
        var timestamp: String?
        var mood: Int?
        var urgeLevel: Int?
        var triggerContext: String?
        var note: String?
        var exerciseCompleted: Bool?

        enum CodingKeys: String, CodingKey {
            case timestamp, mood
            case urgeLevel = "urge_level"
            case triggerContext = "trigger_context"
            case note
            case exerciseCompleted = "exercise_completed"
        }
    }

    /// The check-in a body describes, on top of `current` for an edit: its time, and what it says
    /// with the triggers read from its words and whether they say the user is in danger.
    func entry(_ body: Body, current: StoredCheckIn?, now: Date) throws -> (at: Date, entry: WellbeingCheckInEntry) {
        let given = try Self.fields(body, current: current, now: now)
        let triggers = WellbeingTrigger.classify([given.context, given.note].compactMap { $0 }.joined(separator: " "))
        return (given.at, WellbeingCheckInEntry(
            mood: given.mood, urgeLevel: given.urge, triggerContext: given.context, note: given.note, exerciseCompleted: given.done,
            triggers: triggers.map(\.rawValue), crisis: space.isCrisis([given.note, given.context])))
    }

    static func fields(_ body: Body, current: StoredCheckIn?, now: Date) throws -> (at: Date, mood: Int, urge: Int, context: String?, note: String?, done: Bool) {
        var at = current?.at ?? now
        if let text = body.timestamp {
            guard let parsed = Timestamp.parse(text) else { throw APIError.invalid("timestamp", "timestamp must be an ISO 8601 date-time with a zone") }
            guard parsed <= now.addingTimeInterval(300) else { throw APIError.invalid("timestamp", "timestamp must not be in the future") }
            guard parsed >= now.addingTimeInterval(-366 * 86_400) else { throw APIError.invalid("timestamp", "timestamp must be within the last year") }
            at = parsed
        }
        guard let mood = body.mood ?? current?.entry.mood else { throw APIError.invalid("mood", "mood is required (1 to 10)") }
        guard (1...10).contains(mood) else { throw APIError.invalid("mood", "mood must be between 1 and 10") }
        guard let urge = body.urgeLevel ?? current?.entry.urgeLevel else { throw APIError.invalid("urge_level", "urge_level is required (0 to 10)") }
        guard (0...10).contains(urge) else { throw APIError.invalid("urge_level", "urge_level must be between 0 and 10") }
        // Sent (even empty, which clears it) replaces; left out keeps the current words.
        let context = body.triggerContext != nil ? try text(body.triggerContext, field: "trigger_context", max: maxTriggerContext) : current?.entry.triggerContext
        let note = body.note != nil ? try text(body.note, field: "note", max: maxNote) : current?.entry.note
        return (at, mood, urge, context, note, body.exerciseCompleted ?? current?.entry.exerciseCompleted ?? false)
    }

    /// Trimmed; empty is none. Over `max` characters is refused, not cut: a note is the user's words.
    static func text(_ value: String?, field: String, max: Int) throws -> String? {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= max else { throw APIError.invalid(field, "\(field) must be at most \(max) characters") }
        return trimmed.isEmpty ? nil : trimmed
    }

    func create(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let body = try await JSONRequestBody.decode(Body.self, from: request, context: context)
        let (at, entry) = try self.entry(body, current: nil, now: Date())
        let id = UUID()
        try await space.publish(WellbeingCheckInLogged(checkinId: id, userId: user, at: at, entry: entry), context: context)
        guard let stored = try await space.readModel.checkIn(id, of: user) else { throw APIError.notFound("check-in") }
        var answer: [String: JSONValue] = ["checkin": stored.json]
        let settings = try await space.settings(of: user)
        try await cancelTodaysNudge(of: user, checkedInAt: at, zone: space.zone(of: settings), context: context)
        if entry.crisis {
            answer["crisis"] = space.crisisAnswer
            answer["quiz_offer"] = .null
            return TrackingJSON(status: .created, value: .object(answer))
        }
        let seen = try await space.readModel.tipsInFeed(of: user)
        let tips = try await space.publishTips(
            to: user, count: seen.isEmpty ? 3 : 1, reason: "checkin", extraTriggers: entry.triggers.compactMap(WellbeingTrigger.init(rawValue:)), settings: settings, seen: seen, context: context)
        let badges = try await space.announceBadges(of: user, settings: settings, context: context)
        answer["tips"] = .array(tips.map(space.tipJSON))
        answer["badges_earned"] = .array(badges.map(space.badgeJSON))
        answer["quiz_offer"] = entry.urgeLevel >= Self.quizOfferUrge
            ? .object(["reason": .string("a strong urge: a short quiz can help it pass"), "start_url": .string("/v1/wellbeing/quizzes")])
            : .null
        return TrackingJSON(status: .created, value: .object(answer))
    }

    /// A check-in today makes today's nudge pointless: it is cancelled (a no-op when none was planned).
    func cancelTodaysNudge(of user: UUID, checkedInAt: Date, zone: TimeZone, context: HearthRequestContext) async throws {
        let day = CalendarDay(checkedInAt, in: zone)
        guard day == CalendarDay(Date(), in: zone) else { return }
        try await space.publisher.publish(
            ReminderCancelled(reminderId: WellbeingSchedule.nudgeId(user: user, day: day.isoDate), userId: user, cancelledBy: user),
            correlationId: context.correlationId)
    }

    func list(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let query = request.uri.queryParameters
        let zone = space.zone(of: try await space.settings(of: user))
        func date(_ name: String) throws -> Date? {
            guard let text = query.get(name) else { return nil }
            if let instant = Timestamp.parse(text) { return instant }
            guard let day = CalendarDay(isoDate: text) else { throw APIError.invalid(name, "\(name) must be a date (YYYY-MM-DD) or an ISO 8601 date-time") }
            return SummaryRoutes.midnight(name == "to" ? day.adding(days: 1) : day, zone)
        }
        let from = try date("from"), to = try date("to")
        if let from, let to, to < from { throw APIError.invalid("to", "to must not be before from") }
        var limit = 50
        if let text = query.get("limit") {
            guard let value = Int(text), (1...200).contains(value) else { throw APIError.invalid("limit", "limit must be between 1 and 200") }
            limit = value
        }
        var before: (Date, UUID)?
        if let cursor = query.get("cursor") {
            guard let id = UUID(uuidString: cursor), let last = try await space.readModel.checkIn(id, of: user) else {
                throw APIError.invalid("cursor", "cursor must be the next_cursor of a previous page")
            }
            before = (last.at, last.checkinId)
        }
        let page = try await space.readModel.checkIns(of: user, from: from, to: to, before: before, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        return TrackingJSON(value: .object([
            "checkins": .array(shown.map(\.json)),
            "next_cursor": page.count > limit ? .string(shown.last!.checkinId.uuidString.lowercased()) : .null,
        ]))
    }

    func show(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        guard let stored = try await space.readModel.checkIn(try context.uuidParameter("id"), of: user) else { throw APIError.notFound("check-in") }
        return TrackingJSON(value: .object(["checkin": stored.json]))
    }

    func edit(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let id = try context.uuidParameter("id")
        guard let current = try await space.readModel.checkIn(id, of: user) else { throw APIError.notFound("check-in") }
        let body = try await JSONRequestBody.decode(Body.self, from: request, context: context)
        let (at, entry) = try self.entry(body, current: current, now: Date())
        try await space.publish(WellbeingCheckInEdited(checkinId: id, userId: user, at: at, entry: entry), context: context)
        guard let stored = try await space.readModel.checkIn(id, of: user) else { throw APIError.notFound("check-in") }
        var answer: [String: JSONValue] = ["checkin": stored.json]
        if entry.crisis { answer["crisis"] = space.crisisAnswer }
        return TrackingJSON(value: .object(answer))
    }

    func delete(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try space.user(context)
        let id = try context.uuidParameter("id")
        guard try await space.readModel.checkIn(id, of: user) != nil else { throw APIError.notFound("check-in") }
        try await space.publish(WellbeingCheckInDeleted(checkinId: id, userId: user), context: context)
        return Response(status: .noContent)
    }
}
