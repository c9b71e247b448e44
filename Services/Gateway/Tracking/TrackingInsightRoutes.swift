import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import Hummingbird

/// What a child's logs add up to: the child's page (profile and allergens), the timeline, the
/// sync feed of changes, statistics, the next-feed prediction, the SVG charts and the export.
struct TrackingInsightRoutes: Sendable {
    let readModel: TrackingReadModel
    let access: ChildAccess
    let growth: GrowthStandards

    static let maxPage = 200
    static let defaultPage = 50

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("children/{id}") { request, context in try await child(request, context: context) }
        routes.get("children/{id}/timeline") { request, context in try await timeline(request, context: context) }
        routes.get("children/{id}/changes") { request, context in try await changes(request, context: context) }
        routes.get("children/{id}/stats") { request, context in try await stats(request, context: context) }
        routes.get("children/{id}/next-feed") { request, context in try await nextFeed(request, context: context) }
        routes.get("children/{id}/charts/{chart}") { request, context in try await chart(request, context: context) }
        routes.get("children/{id}/export") { request, context in try await export(request, context: context) }
    }

    func child(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context, readers: .membersAndTrackingCoaches)
        // A coach sees the child's allergens only when the owners also gave them allergy facts.
        let showsAllergens = try await access.coachScope(of: user, for: child)?.profileKinds.contains("allergy") ?? true
        let allergens = try await (showsAllergens ? readModel.allergens(of: child.childId) : []).map { status -> JSONValue in
            var fields: [String: JSONValue] = [
                "allergen": .string(status.allergen), "exposures": .number(Double(status.exposures)),
                "first_exposed_at": status.firstExposedAt.map { .string(Timestamp.format($0)) } ?? .null,
                "first_food_log_id": status.firstFoodLogId.map { .string($0.uuidString.lowercased()) } ?? .null,
                "reacted": .bool(status.reactedAt != nil),
            ]
            if let reactedAt = status.reactedAt {
                // Where the reaction came from: the log or check-in, who reported it and when.
                fields["reaction"] = .object([
                    "at": .string(Timestamp.format(reactedAt)), "severity": status.severity.map(JSONValue.string) ?? .null,
                    "source": status.source.map(JSONValue.string) ?? .null,
                    "food_log_id": status.reactionLogId.map { .string($0.uuidString.lowercased()) } ?? .null,
                    "reported_by": status.reportedBy.map { .string($0.uuidString.lowercased()) } ?? .null,
                ])
            }
            return .object(fields)
        }
        return TrackingJSON(value: .object([
            "child_id": .string(child.childId.uuidString.lowercased()), "household_id": .string(child.householdId.uuidString.lowercased()),
            "name": .string(child.name), "birthdate": child.birthdate.map { .string($0.isoDate) } ?? .null,
            "age_days": child.ageDays(at: Date()).map { .number(Double($0)) } ?? .null,
            "sex": child.sex.map(JSONValue.string) ?? .null, "allergens": .array(allergens),
        ]))
    }

    /// `?from=&to=` (RFC 3339 or `YYYY-MM-DD`; default the last 7 days), `limit`, and `cursor`
    /// (the `next_cursor` of the previous page).
    func timeline(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, child) = try await access.child(request, context: context)
        let now = Date()
        let to = try request.uri.queryParameters.get("to").map { _ in try CalendarRoutes.time(request, "to") } ?? now.addingTimeInterval(3600)
        let from = try request.uri.queryParameters.get("from").map { _ in try CalendarRoutes.time(request, "from") } ?? to.addingTimeInterval(-7 * 86_400)
        guard to > from else { throw APIError.invalid("to", "to must be after from") }
        let limit = try Self.limit(request)
        let before = try request.uri.queryParameters.get("cursor").map(Self.timelineCursor)
        let logs = try await readModel.timeline(child: child.childId, from: from, to: to, before: before, limit: limit + 1)
        let page = Array(logs.prefix(limit))
        let next: JSONValue = logs.count > limit ? page.last.map { .string("\(Int64(($0.at.timeIntervalSince1970 * 1000).rounded()))_\($0.logId.uuidString.lowercased())") } ?? .null : .null
        return TrackingJSON(value: .object([
            "from": .string(Timestamp.format(from)), "to": .string(Timestamp.format(to)), "logs": .array(page.map(\.json)), "next_cursor": next,
        ]))
    }

    /// `?since=<cursor>`: every log changed after the cursor (created, edited, deleted: deleted
    /// ones come back with `"deleted": true`), oldest change first; `cursor` is where to go on from.
    func changes(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, child) = try await access.child(request, context: context)
        var since: Int64 = -1
        if let text = request.uri.queryParameters.get("since"), !text.isEmpty {
            guard let value = Int64(text), value >= -1 else { throw APIError.invalid("since", "since must be a cursor from a previous answer") }
            since = value
        }
        let limit = try Self.limit(request)
        let logs = try await readModel.changes(child: child.childId, after: since, limit: limit + 1)
        let page = Array(logs.prefix(limit))
        let cursor = page.last?.changeOffset ?? since
        return TrackingJSON(value: .object([
            "changes": .array(page.map(\.json)), "cursor": .string(String(cursor)), "has_more": .bool(logs.count > limit),
        ]))
    }

    func stats(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let (user, child) = try await access.child(request, context: context, readers: .membersAndTrackingCoaches)
        let days = try Self.days(request)
        let zone = try await access.timeZone(of: user)
        let now = Date()
        let start = TrackingStatistics.windowStart(days: days, now: now, timeZone: zone)
        // Sleeps that began the day before can reach into the window.
        let logs = try await readModel.logs(
            child: child.childId, kinds: [.feed, .sleep, .diaper, .food], from: start.addingTimeInterval(-86_400), to: now.addingTimeInterval(3600))
        let samples = TrackingSamples(logs)
        let summary = TrackingStatistics.summary(
            days: days, now: now, timeZone: zone, feeds: samples.feeds, sleeps: samples.sleeps, diapers: samples.diapers, foods: samples.foods)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(summary))))
    }

    func nextFeed(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        let zone = try await access.timeZone(of: user)
        let now = Date()
        let feeds = try await readModel.logs(child: child.childId, kinds: [.feed], from: now.addingTimeInterval(-TrackingSamples.feedHistory), to: now.addingTimeInterval(3600))
        guard let prediction = NextFeedPredictor.predict(feeds: feeds.map(\.at), timeZone: zone, now: now) else {
            return TrackingJSON(value: .object([
                "prediction": .null, "feeds_considered": .number(Double(feeds.count)),
                "explanation": .string("not enough feeds in the last 7 days to see a pattern (at least three are needed)"),
            ]))
        }
        return TrackingJSON(value: .object([
            "prediction": .object([
                "predicted_at": .string(Timestamp.format(prediction.predictedAt)), "basis": .string(prediction.basis.rawValue),
                "median_interval_minutes": .number((prediction.medianInterval / 6).rounded() / 10),
                "intervals_used": .number(Double(prediction.intervalsUsed)), "last_feed_at": .string(Timestamp.format(prediction.lastFeedAt)),
                "overdue": .bool(prediction.overdue),
            ]),
            "feeds_considered": .number(Double(feeds.count)), "explanation": .string(prediction.explanation),
        ]))
    }

    func chart(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let (user, child) = try await access.child(request, context: context)
        let zone = try await access.timeZone(of: user)
        let svg: String
        switch context.parameters.get("chart") {
        case "growth.svg": svg = try await growthChart(request, child: child)
        case "sleep.svg", "feeds.svg":
            let days = try Self.days(request)
            let now = Date()
            let start = TrackingStatistics.windowStart(days: days, now: now, timeZone: zone)
            let logs = try await readModel.logs(child: child.childId, kinds: [.feed, .sleep], from: start.addingTimeInterval(-86_400), to: now.addingTimeInterval(3600))
            let window = TrackingChartWindow(start: start, days: days, zone: zone, now: now)
            svg = context.parameters.get("chart") == "sleep.svg"
                ? SleepChart(title: "\(child.name): sleep", days: window.dayNames, intervals: window.sleepIntervals(logs)).svg()
                : FeedsChart(title: "\(child.name): feeds", days: window.feedDays(logs)).svg()
        default:
            throw APIError.notFound("chart (growth.svg, sleep.svg or feeds.svg)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "image/svg+xml; charset=utf-8"
        headers[.cacheControl] = "private, no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: svg)))
    }

    /// `?measure=weight|length|head` (default weight): the child's measurements over the WHO bands.
    private func growthChart(_ request: Request, child: TrackedChild) async throws -> String {
        let measures: [String: (String, GrowthIndicator, String, String)] = [
            "weight": ("weight_kg", .weightForAge, "Weight for age", "kg"),
            "length": ("length_cm", .lengthForAge, "Length/height for age", "cm"),
            "head": ("head_cm", .headCircumferenceForAge, "Head circumference for age", "cm"),
        ]
        let name = request.uri.queryParameters.get("measure") ?? "weight"
        guard let (field, indicator, title, unit) = measures[name] else { throw APIError.invalid("measure", "measure must be weight, length or head") }
        guard let sexName = child.sex, let sex = GrowthSex(rawValue: sexName), let birth = child.birth else {
            throw APIError(.conflict, code: "profile_incomplete", message: "growth charts need the child's birth date and sex (PUT /v1/children/{id}/profile)")
        }
        let logs = try await readModel.logs(child: child.childId, kinds: [.growth], from: birth.addingTimeInterval(-86_400), to: Date().addingTimeInterval(3600))
        let points = logs.compactMap { log -> GrowthChartPoint? in
            guard case .number(let value)? = log.detail[field], let age = child.ageDays(at: log.at), age >= 0 else { return nil }
            return GrowthChartPoint(ageDays: age, value: value)
        }
        let lastAge = max(points.map(\.ageDays).max() ?? 0, child.ageDays(at: Date()) ?? 0)
        let span = min(GrowthStandards.ageRangeDays.upperBound, max(183, Int((Double(lastAge) / 91.3125).rounded(.up) * 91.3125) + 92))
        let step = max(1, span / 120)
        let bands = growth.bands(indicator, sex: sex, span: span, step: step)
        return GrowthChart(title: "\(child.name): \(title.lowercased())", unit: unit, bands: bands, measurements: points).svg()
    }

    /// `?format=csv|json`: every live log of the child, oldest first.
    func export(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let (_, child) = try await access.child(request, context: context)
        let format = request.uri.queryParameters.get("format") ?? "json"
        guard format == "csv" || format == "json" else { throw APIError.invalid("format", "format must be csv or json") }
        let logs = try await readModel.logs(
            child: child.childId, kinds: TrackingLogKind.allCases, from: Date(timeIntervalSince1970: 0), to: Date.distantFuture)
        var headers = HTTPFields()
        let stem = "child-\(child.childId.uuidString.lowercased())-logs"
        if format == "csv" {
            headers[.contentType] = "text/csv; charset=utf-8"
            headers[.contentDisposition] = "attachment; filename=\"\(stem).csv\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: TrackingExport.csv(logs))))
        }
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(stem).json\""
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body: JSONValue = .object([
            "child_id": .string(child.childId.uuidString.lowercased()), "name": .string(child.name), "logs": .array(logs.map(\.json)),
        ])
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(body))))
    }

    static func limit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("limit") else { return defaultPage }
        guard let limit = Int(text), (1...maxPage).contains(limit) else { throw APIError.invalid("limit", "limit must be 1 to \(maxPage)") }
        return limit
    }

    static func days(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("days") else { return 7 }
        guard let days = Int(text), days == 7 || days == 30 else { throw APIError.invalid("days", "days must be 7 or 30") }
        return days
    }

    static func timelineCursor(_ text: String) throws -> (Date, UUID) {
        let parts = text.split(separator: "_")
        // Bounded to years a log can have (1970 to 2200), so the time always fits Postgres.
        guard parts.count == 2, let ms = Int64(parts[0]), (0...7_258_118_400_000).contains(ms), let id = UUID(uuidString: String(parts[1])) else {
            throw APIError.invalid("cursor", "cursor must be the next_cursor of a previous page")
        }
        return (Date(timeIntervalSince1970: Double(ms) / 1000), id)
    }
}

/// Stored logs as the statistics and predictor take them.
struct TrackingSamples {
    static let feedHistory: TimeInterval = 7 * 86_400

    var feeds: [FeedSample] = []
    var sleeps: [SleepSample] = []
    var diapers: [DiaperSample] = []
    var foods: [FoodSample] = []

    init(_ logs: [StoredLog]) {
        for log in logs {
            switch log.kind {
            case .feed:
                guard case .string(let method)? = log.detail["method"], let kind = FeedSample.Kind(rawValue: method) else { continue }
                feeds.append(FeedSample(at: log.at, kind: kind, bottleMl: log.detail["amount_ml"]?.number, nursingMinutes: log.detail["duration_minutes"]?.number))
            case .sleep:
                sleeps.append(SleepSample(start: log.at, end: log.endedAt, isNap: log.detail["period"] == .string("nap")))
            case .diaper:
                let contents = log.detail["contents"]?.string ?? ""
                diapers.append(DiaperSample(at: log.at, wet: contents != "dirty", dirty: contents != "wet"))
            case .food:
                foods.append(FoodSample(
                    firstTriedAt: log.at, food: log.detail["food"]?.string ?? "", colour: log.detail["colour"]?.string,
                    unmarked: (log.detail["unmarked_at"] ?? .null) != .null))
            default:
                continue
            }
        }
    }
}

extension JSONValue {
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
}

/// The local days of a chart window and what falls in each.
struct TrackingChartWindow {
    let start: Date
    let days: Int
    let zone: TimeZone
    let now: Date

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    var dayStarts: [Date] { (0...days).compactMap { calendar.date(byAdding: .day, value: $0, to: start) } }

    var dayNames: [String] {
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = zone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return dayStarts.prefix(days).map { formatter.string(from: $0) }
    }

    /// Each sleep cut at local midnights into the rows of the days it touches.
    func sleepIntervals(_ logs: [StoredLog]) -> [SleepChartInterval] {
        let starts = dayStarts
        var result: [SleepChartInterval] = []
        for log in logs where log.kind == .sleep {
            let end = min(log.endedAt ?? now, now)
            for index in 0..<days {
                let dayStart = starts[index], dayEnd = starts[index + 1]
                let from = max(log.at, dayStart), to = min(end, dayEnd)
                guard to > from else { continue }
                let minutes = { (date: Date) in Int((date.timeIntervalSince(dayStart) / 60).rounded()) }
                result.append(SleepChartInterval(
                    dayIndex: index, startMinuteOfDay: minutes(from), endMinuteOfDay: min(24 * 60, minutes(to)),
                    isNap: log.detail["period"] == .string("nap")))
            }
        }
        return result
    }

    func feedDays(_ logs: [StoredLog]) -> [FeedsChartDay] {
        let starts = dayStarts
        return dayNames.enumerated().map { index, name in
            let feeds = logs.filter { $0.kind == .feed && $0.at >= starts[index] && $0.at < starts[index + 1] }
            func count(_ method: String) -> Int { feeds.filter { $0.detail["method"] == .string(method) }.count }
            return FeedsChartDay(
                day: name, bottle: count("bottle"), nursing: count("nursing"), solids: count("solids"),
                bottleMl: feeds.compactMap { $0.detail["amount_ml"]?.number }.reduce(0, +))
        }
    }
}

/// The CSV form of a child's logs: one row per log, the log's own columns then every detail field
/// any log has (lists joined with `; `).
enum TrackingExport {
    static let fixed = ["log_id", "kind", "at", "logged_by", "logged_at", "updated_at", "version"]

    static func csv(_ logs: [StoredLog]) -> String {
        var detailColumns = Set<String>()
        for log in logs { if case .object(let fields) = log.detail { detailColumns.formUnion(fields.keys) } }
        let columns = fixed + detailColumns.sorted()
        var lines = [columns.map(quoted).joined(separator: ",")]
        for log in logs {
            let own: [String: String] = [
                "log_id": log.logId.uuidString.lowercased(), "kind": log.kind.rawValue, "at": Timestamp.format(log.at),
                "logged_by": log.loggedBy.uuidString.lowercased(), "logged_at": Timestamp.format(log.loggedAt),
                "updated_at": Timestamp.format(log.updatedAt), "version": String(log.version),
            ]
            lines.append(columns.map { column in quoted(own[column] ?? log.detail[column].map(text) ?? "") }.joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let string): string
        case .array(let items): items.map(text).joined(separator: "; ")
        case .object: (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? ""
        }
    }

    /// RFC 4180 quoting; a leading `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet does
    /// not run a caregiver's note as a formula.
    static func quoted(_ field: String) -> String {
        var value = field
        if let first = value.first, "=+-@".contains(first), Double(value) == nil { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
