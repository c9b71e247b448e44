import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird
import Logging
import PostgresNIO

/// A child's pediatrician summary: `POST /v1/children/{id}/summaries {"from","to","parent_notes"?}`
/// computes the metrics from the logs (here, never by a model) and starts a summary run (streamed
/// back like any run: budgeted, safety-checked, recorded in `agent_runs`);
/// `GET /v1/children/{id}/summaries` lists the finished ones and `GET …/summaries/{sid}` (or
/// `{sid}.json`, `{sid}.pdf`) reads one.
struct SummaryRoutes: Sendable {
    let readModel: TrackingReadModel
    let access: ChildAccess
    let launcher: RunLauncher
    let growth: GrowthStandards
    let client: PostgresClient
    let logger: Logger
    let redactor = PIIRedactor()

    static let maxDays = 366
    static let maxNotes = 2000
    /// How long a read waits for a run this gateway just streamed to reach `agent_runs`.
    static let projectionWait = Duration.seconds(5)

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("children/{id}/summaries") { request, context in try await start(request, context: context) }
        routes.get("children/{id}/summaries") { request, context in try await list(request, context: context) }
        routes.get("children/{id}/summaries/{sid}") { request, context in try await show(request, context: context) }
    }

    struct StartBody: Decodable {
        var from: String
        var to: String
        var parentNotes: String?

        enum CodingKeys: String, CodingKey {
            case from, to
            case parentNotes = "parent_notes"
        }
    }

    func start(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let (user, child) = try await access.child(request, context: context)
        let body = try await JSONRequestBody.decode(StartBody.self, from: request, context: context)
        guard let from = CalendarDay(isoDate: body.from) else { throw APIError.invalid("from", "from must be a date (YYYY-MM-DD)") }
        guard let to = CalendarDay(isoDate: body.to) else { throw APIError.invalid("to", "to must be a date (YYYY-MM-DD)") }
        let days = to.daysSinceEpoch - from.daysSinceEpoch + 1
        guard days >= 1 else { throw APIError.invalid("to", "to must not be before from") }
        guard days <= Self.maxDays else { throw APIError.invalid("to", "a summary covers at most \(Self.maxDays) days") }
        let zone = try await access.timeZone(of: user)
        guard to <= CalendarDay(Date(), in: zone) else { throw APIError.invalid("to", "to must not be after today") }
        let notes = body.parentNotes?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let notes, notes.count > Self.maxNotes { throw APIError.invalid("parent_notes", "parent_notes must be at most \(Self.maxNotes) characters") }
        let metrics = try await metrics(of: child, from: from, to: to, zone: zone)
        let chart = try await growthChart(of: child, to: to, zone: zone)
        let runId = EventIdentity.newId("summary_run")
        let event = SummaryRequestedV2(
            runId: runId, userId: user, householdId: child.householdId, childId: child.childId, childName: child.name, from: from.isoDate,
            to: to.isoDate, parentNotes: notes.flatMap { $0.isEmpty ? nil : redactor.redact($0) }, metrics: try JSONValueEncoder().encode(metrics),
            growthChart: try chart.map { try JSONValueEncoder().encode($0) })
        return try await launcher.launch(event, runId: runId, user: user, request: request, context: context)
    }

    /// The metrics over the local days `from...to` of the caller's zone.
    func metrics(of child: TrackedChild, from: CalendarDay, to: CalendarDay, zone: TimeZone) async throws -> SummaryMetrics {
        let start = Self.midnight(from, zone), end = Self.midnight(to.adding(days: 1), zone)
        let logs = try await readModel.logs(
            child: child.childId, kinds: [.feed, .sleep, .diaper, .food, .medication, .growth], from: start.addingTimeInterval(-86_400), to: end)
        let samples = TrackingSamples(logs)
        var input = SummaryInput(feeds: samples.feeds, sleeps: samples.sleeps, diapers: samples.diapers)
        for log in logs {
            switch log.kind {
            case .food:
                input.foods.append(.init(
                    at: log.at, food: log.detail["food"]?.string ?? "", colour: log.detail["colour"]?.string,
                    reaction: log.detail["reaction"]?.string ?? "none",
                    allergens: (log.detail["allergens"].flatMap { if case .array(let items) = $0 { items.compactMap(\.string) } else { nil } }) ?? [],
                    unmarked: (log.detail["unmarked_at"] ?? .null) != .null))
            case .medication:
                input.doses.append(.init(at: log.at, name: log.detail["name"]?.string ?? ""))
            case .growth:
                input.measurements.append(.init(at: log.at, weightKg: log.detail["weight_kg"]?.number, lengthCm: log.detail["length_cm"]?.number))
            default:
                continue
            }
        }
        return SummaryCalculator.metrics(
            input, from: start, to: end, now: Date(), child: SummaryChild(name: child.name, birth: child.birth, sex: child.sex.flatMap(GrowthSex.init(rawValue:))),
            standards: growth, zone: zone, days: to.daysSinceEpoch - from.daysSinceEpoch + 1)
    }

    /// Every weight of the child from birth to the end of `to`, with the age it was taken at.
    func growthChart(of child: TrackedChild, to: CalendarDay, zone: TimeZone) async throws -> SummaryGrowthChart? {
        guard let sex = child.sex.flatMap(GrowthSex.init(rawValue:)), let birth = child.birth else { return nil }
        let logs = try await readModel.logs(child: child.childId, kinds: [.growth], from: birth.addingTimeInterval(-86_400), to: Self.midnight(to.adding(days: 1), zone))
        let points = logs.compactMap { log -> SummaryGrowthChart.Point? in
            guard let weight = log.detail["weight_kg"]?.number, let age = child.ageDays(at: log.at), age >= 0 else { return nil }
            return SummaryGrowthChart.Point(ageDays: age, weightKg: weight)
        }
        return points.isEmpty ? nil : SummaryGrowthChart(sex: sex, points: points)
    }

    struct StoredSummary: Sendable {
        var runId: UUID
        var state: String
        var terminal: String?
        var startedAt: Date
        var final: JSONValue?
    }

    func list(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, child) = try await access.child(request, context: context, readers: .membersAndTrackingCoaches)
        let summaries = try await stored(child: child, runId: nil).filter { $0.terminal == "final" }
        return TrackingJSON(value: .object(["summaries": .array(summaries.map { summary in
            .object([
                "summary_id": .string(summary.runId.uuidString.lowercased()), "state": .string(summary.state),
                "started_at": .string(Timestamp.format(summary.startedAt)), "from": summary.final?["from"] ?? .null,
                "to": summary.final?["to"] ?? .null, "pdf_url": .string(Self.url(child, summary.runId) + ".pdf"),
            ])
        })]))
    }

    func show(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let (_, child) = try await access.child(request, context: context, readers: .membersAndTrackingCoaches)
        var name = context.parameters.get("sid") ?? ""
        var format = "json"
        for suffix in [".pdf", ".json"] where name.hasSuffix(suffix) {
            format = String(suffix.dropFirst())
            name = String(name.dropLast(suffix.count))
        }
        guard let id = UUID(uuidString: name) else { throw APIError.invalid("sid", "the summary id must be a UUID (with .pdf or .json)") }
        let wait = launcher.recent.isRecent(id, of: try context.authenticatedUser()) ? Self.projectionWait : .zero
        guard let summary = try await readOnceProjected(within: wait, { try await stored(child: child, runId: id).first }) else {
            throw APIError.notFound("summary")
        }
        guard summary.state != "running" else {
            throw APIError(.conflict, code: "summary_not_ready", message: "the summary is still being written; retry shortly", headers: [.retryAfter: "1"])
        }
        guard summary.terminal == "final", let final = summary.final,
              final["metrics"] != nil, final["narrative"] != nil
        else { throw APIError.notFound("summary (the run ended without one: refused or failed)") }
        if format == "pdf" {
            let pdf = try await pdf(final, child: child)
            var headers = HTTPFields()
            headers[.contentType] = "application/pdf"
            headers[.contentDisposition] = "inline; filename=\"summary-\(id.uuidString.lowercased()).pdf\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: pdf)))
        }
        var value = final
        value["summary_id"] = .string(id.uuidString.lowercased())
        value["started_at"] = .string(Timestamp.format(summary.startedAt))
        return try TrackingJSON(value: value).response(from: request, context: context)
    }

    /// The finished summary runs of the child (the run's final answer names the child).
    private func stored(child: TrackedChild, runId: UUID?) async throws -> [StoredSummary] {
        let rows = try await client.query(
            """
            SELECT r.run_id, r.state, r.terminal_event, r.started_at, r.final::text FROM agent_runs r
            WHERE r.mode = 'summary' AND r.household_id = \(child.householdId)
              AND (\(runId)::uuid IS NULL OR r.run_id = \(runId))
              -- a finished summary names its child; one still running or ended without a summary is
              -- found only by its id, by a member of the household (the run is the household's)
              AND (r.final->>'child_id' = \(child.childId.uuidString.lowercased()) OR (\(runId)::uuid IS NOT NULL AND r.terminal_event IS DISTINCT FROM 'final'))
            ORDER BY r.started_at DESC, r.run_id LIMIT 100
            """, logger: logger)
        var result: [StoredSummary] = []
        for try await (id, state, terminal, started, final) in rows.decode((UUID, String, String?, Date, String?).self) {
            result.append(StoredSummary(
                runId: id, state: state, terminal: terminal, startedAt: started,
                final: try final.map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }))
        }
        return result
    }

    private func pdf(_ final: JSONValue, child: TrackedChild) async throws -> Data {
        let decoder = JSONDecoder()
        func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue?) throws -> T {
            try decoder.decode(T.self, from: JSONEncoder().encode(value ?? .null))
        }
        guard let metrics = try? decode(SummaryMetrics.self, final["metrics"]), let narrative = try? decode(SummaryNarrative.self, final["narrative"]) else {
            throw APIError.notFound("summary (its stored form is not one this gateway reads)")
        }
        let from = final["from"]?.string ?? "", to = final["to"]?.string ?? ""
        // Drawn from what the summary froze when it was asked for (null for a v1 request).
        let chart = (try? decode(SummaryGrowthChart?.self, final["growth_chart"]))??.pdfChart(standards: growth)
        return SummaryPDF(
            childName: final["child_name"]?.string ?? child.name, from: from, to: to, metrics: metrics, narrative: narrative,
            parentNotes: final["parent_notes"]?.string, growthChart: chart
        ).data()
    }

    static func url(_ child: TrackedChild, _ runId: UUID) -> String {
        "/v1/children/\(child.childId.uuidString.lowercased())/summaries/\(runId.uuidString.lowercased())"
    }

    static func midnight(_ day: CalendarDay, _ zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day)) ?? Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch * 86_400))
    }
}
