import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import Hummingbird

/// Settings (`GET|PUT /v1/wellbeing/settings`), the tips feed (`GET …/tips?after_id=&limit=`),
/// the dashboard (`GET …/dashboard?range=7d|30d|90d`, its chart `…/dashboard/craving.svg`) and
/// the weekly reflection (`GET …/reflections/weekly?week=`, its chart `…/reflections/weekly.svg`).
struct WellbeingInsightRoutes: Sendable {
    let space: WellbeingSpace

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("settings") { request, context in try await settings(request, context: context) }
        routes.put("settings") { request, context in try await updateSettings(request, context: context) }
        routes.get("tips") { request, context in try await tips(request, context: context) }
        routes.get("dashboard") { request, context in try await dashboard(request, context: context) }
        routes.get("dashboard/craving.svg") { request, context in try await cravingChart(request, context: context) }
        routes.get("reflections/weekly") { request, context in try await reflection(request, context: context) }
        routes.get("reflections/weekly.svg") { request, context in try await reflectionChart(request, context: context) }
    }

    // MARK: settings

    static func json(_ settings: WellbeingSettingsValue) -> JSONValue {
        .object([
            "delivery_window": .object([
                "start": .string(settings.windowStart), "end": .string(settings.windowEnd), "time_zone": .string(settings.timeZone),
            ]),
            "badge_only": .bool(settings.badgeOnly), "no_autoplay": .bool(settings.noAutoplay),
            "interests": .array(settings.interests.map(JSONValue.string)), "reminder_cadence": .string(settings.reminderCadence),
            "available_interests": .array(WellbeingInterest.allCases.map { .object(["id": .string($0.rawValue), "name": .string($0.displayName)]) }),
        ])
    }

    func settings(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        TrackingJSON(value: Self.json(try await space.settings(of: try space.user(context))))
    }

    struct SettingsBody: Decodable {
        struct Window: Decodable {
            var start: String?
            var end: String?
            var timeZone: String?
            enum CodingKeys: String, CodingKey {
                case start, end
                case timeZone = "time_zone"
            }
        }

        var deliveryWindow: Window?
        var badgeOnly: Bool?
        var noAutoplay: Bool?
        var interests: [String]?
        var reminderCadence: String?

        enum CodingKeys: String, CodingKey {
            case deliveryWindow = "delivery_window"
            case badgeOnly = "badge_only"
            case noAutoplay = "no_autoplay"
            case interests
            case reminderCadence = "reminder_cadence"
        }
    }

    /// Fields left out keep their value. New interests bring tips of their own into the feed.
    func updateSettings(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let body = try await JSONRequestBody.decode(SettingsBody.self, from: request, context: context)
        var settings = try await space.settings(of: user)
        if let window = body.deliveryWindow {
            do {
                let parsed = try DeliveryWindow.parse(
                    start: window.start ?? settings.windowStart, end: window.end ?? settings.windowEnd, timeZone: window.timeZone ?? settings.timeZone)
                settings.windowStart = parsed.start
                settings.windowEnd = parsed.end
                settings.timeZone = parsed.timeZone
            } catch {
                throw APIError.invalid("delivery_window.\(error.field.rawValue)", error.description)
            }
        }
        if let badgeOnly = body.badgeOnly { settings.badgeOnly = badgeOnly }
        if let noAutoplay = body.noAutoplay { settings.noAutoplay = noAutoplay }
        let before = Set(settings.interests)
        if let interests = body.interests {
            guard interests.count <= WellbeingInterest.allCases.count else { throw APIError.invalid("interests", "at most \(WellbeingInterest.allCases.count) interests") }
            var chosen: [String] = []
            for interest in interests {
                guard WellbeingInterest(rawValue: interest) != nil else {
                    throw APIError.invalid("interests", "unknown interest \(interest.prefix(40)); one of \(WellbeingInterest.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                if !chosen.contains(interest) { chosen.append(interest) }
            }
            settings.interests = chosen
        }
        if let cadence = body.reminderCadence {
            guard WellbeingReminderCadence(rawValue: cadence) != nil else {
                throw APIError.invalid("reminder_cadence", "reminder_cadence must be one of \(WellbeingReminderCadence.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            settings.reminderCadence = cadence
        }
        try await space.publish(WellbeingSettingsUpdated(userId: user, settings: settings), context: context)
        if !Set(settings.interests).subtracting(before).isEmpty {
            _ = try await space.publishTips(to: user, count: 2, reason: "interests", settings: settings, context: context)
        }
        return TrackingJSON(value: Self.json(settings))
    }

    // MARK: tips

    /// Newest first. `after_id` is the last entry of the previous page: entries that arrive while
    /// the user scrolls go on top, so a page never repeats or skips one.
    func tips(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let query = request.uri.queryParameters
        var limit = 20
        if let text = query.get("limit") {
            guard let value = Int(text), (1...50).contains(value) else { throw APIError.invalid("limit", "limit must be between 1 and 50") }
            limit = value
        }
        var after: StoredFeedTip?
        if let text = query.get("after_id") {
            guard let id = UUID(uuidString: text), let entry = try await space.readModel.feedEntry(id, of: user) else {
                throw APIError.invalid("after_id", "after_id must be the id of a tip in your feed")
            }
            after = entry
        }
        let page = try await space.readModel.tipFeed(of: user, after: after, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let items: [JSONValue] = shown.compactMap { entry in
            guard let tip = space.tips.tip(id: entry.tipId), case .object(var fields) = space.tipJSON(tip) else { return nil }
            fields["id"] = .string(entry.feedId.uuidString.lowercased())
            fields["reason"] = .string(entry.reason)
            fields["at"] = .string(Timestamp.format(entry.at))
            return .object(fields)
        }
        return TrackingJSON(value: .object([
            "tips": .array(items), "next_after_id": page.count > limit ? .string(shown.last!.feedId.uuidString.lowercased()) : .null,
        ]))
    }

    // MARK: dashboard

    static func days(_ request: Request) throws -> Int {
        switch request.uri.queryParameters.get("range") ?? "7d" {
        case "7d": return 7
        case "30d": return 30
        case "90d": return 90
        default: throw APIError.invalid("range", "range must be 7d, 30d or 90d")
        }
    }

    func progress(of user: UUID) async throws -> (WellbeingProgress, WellbeingSettingsValue) {
        let settings = try await space.settings(of: user)
        let activity = try await space.readModel.activity(of: user)
        return (WellbeingProgress(
            checkIns: activity.checkIns, quizzes: activity.quizzes, exercises: activity.exercises, timeZone: space.zone(of: settings), now: Date()), settings)
    }

    func dashboard(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let days = try Self.days(request)
        let (progress, settings) = try await progress(of: user)
        let trend = progress.cravingTrend(days: days)
        let exercises = progress.exercisesDone(days: days)
        let cadence = WellbeingReminderCadence(rawValue: settings.reminderCadence) ?? .daily
        return TrackingJSON(value: .object([
            "range": .string("\(days)d"), "time_zone": .string(settings.timeZone),
            "streak": .number(Double(progress.streak)), "longest_streak": .number(Double(progress.longestStreak)),
            "craving_trend": .array(trend.map { day in
                .object(["day": .string(day.day), "average_urge": day.averageUrge.map(JSONValue.number) ?? .null, "check_ins": .number(Double(day.checkIns))])
            }),
            "craving_chart_url": .string("/v1/wellbeing/dashboard/craving.svg?range=\(days)d"),
            "quiz_history": .array(progress.quizHistory(limit: 10).map { quiz in
                .object([
                    "quiz_id": .string(quiz.id.uuidString.lowercased()), "domain": .string(quiz.domain), "score": .number(Double(quiz.score)),
                    "total": .number(Double(quiz.total)), "at": .string(Timestamp.format(quiz.at)),
                ])
            }),
            "exercises_done": .number(Double(exercises.count)),
            "exercises": .array(exercises.map { .object(["exercise_id": .string($0.id.uuidString.lowercased()), "kind": .string($0.kind), "at": .string(Timestamp.format($0.at))]) }),
            "badges": .array(progress.badges.map(space.badgeJSON)),
            "badges_remaining": .array(progress.remainingRules.map { .object(["badge_id": .string($0.id), "title": .string($0.title), "criterion": .string($0.criterion)]) }),
            "upcoming_tasks": .array(progress.upcomingTasks(cadence: cadence).map { task in
                .object(["id": .string(task.id), "title": .string(task.title), "week": task.weekStart.map(JSONValue.string) ?? .null])
            }),
        ]))
    }

    func cravingChart(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try space.user(context)
        let days = try Self.days(request)
        let (progress, _) = try await progress(of: user)
        return Self.svg(WellbeingCharts.cravingTrend(progress.cravingTrend(days: days), title: "Urge level by day, last \(days) days"))
    }

    static func svg(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "image/svg+xml; charset=utf-8"
        headers[.cacheControl] = "private, no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: weekly reflection

    /// The week asked for (any date of it; by default the last whole week), its stored reflection
    /// when the weekly run wrote one, else figures and a recap computed now.
    func weeklyReflection(_ request: Request, user: UUID) async throws -> (figures: WeeklyFigures, recap: String, writtenBy: String, stored: Bool) {
        let settings = try await space.settings(of: user)
        let zone = space.zone(of: settings)
        var week = WeeklyFigures.week(containing: Date().addingTimeInterval(-7 * 86_400), timeZone: zone)
        if let text = request.uri.queryParameters.get("week") {
            guard let parsed = WeeklyFigures.parseWeek(text) else { throw APIError.invalid("week", "week must be a date (YYYY-MM-DD)") }
            guard parsed <= WeeklyFigures.week(containing: Date(), timeZone: zone) else { throw APIError.invalid("week", "week must not be in the future") }
            week = parsed
        }
        if let stored = try await space.readModel.reflection(of: user, week: week) {
            return (stored.figures, stored.recap, stored.writtenBy, true)
        }
        let activity = try await space.readModel.activity(of: user)
        guard let figures = WeeklyFigures.compute(
            weekStart: week, timeZone: zone, checkIns: activity.checkIns, quizzes: activity.quizzes, exercises: activity.exercises, now: Date())
        else { throw APIError.invalid("week", "week must be a date (YYYY-MM-DD)") }
        return (figures, ReflectionTemplate.recap(figures), "template", false)
    }

    func reflection(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let user = try space.user(context)
        let reflection = try await weeklyReflection(request, user: user)
        return TrackingJSON(value: .object([
            "week": .string(reflection.figures.weekStart), "figures": try JSONValueEncoder().encode(reflection.figures),
            "recap": .string(reflection.recap), "written_by": .string(reflection.writtenBy), "final": .bool(reflection.stored),
            "chart_url": .string("/v1/wellbeing/reflections/weekly.svg?week=\(reflection.figures.weekStart)"),
        ]))
    }

    func reflectionChart(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try space.user(context)
        return Self.svg(WellbeingCharts.weeklySummary(try await weeklyReflection(request, user: user).figures))
    }
}
