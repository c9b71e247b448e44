import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird
import Logging
import PostgresNIO

/// Daycare report import: `POST /v1/children/{id}/imports?day=&filename=` (the file itself as the
/// body: text, CSV, JSON, PDF or a photo, ≤ 10 MB) reads the report into suggested logs;
/// `GET …/imports/{iid}` shows them with their conflicts; `PATCH …/imports/{iid}/suggestions/{n}`
/// keeps, drops or edits one; `POST …/imports/{iid}/commit` writes the kept ones as ordinary logs,
/// once. PDFs are read through poppler's `pdftotext` and photos through `tesseract` (Debian, both
/// installed by `make setup`); the rules of `DaycareReportParser`, or a model with the rules
/// behind it (`HEARTH_DAYCARE_IMPORT_PARSER=model`), turn the text into suggestions.
struct DaycareImportRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: TrackingReadModel
    let access: ChildAccess
    let consistency: ReadConsistency
    let client: PostgresClient
    let tools: ToolRunner
    /// The rules, or a model with the rules behind it (`HEARTH_DAYCARE_IMPORT_PARSER`).
    let reader: any DaycareReportReader
    let logger: Logger

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("children/{id}/imports") { request, context in try await receive(request, context: context) }
        routes.get("children/{id}/imports/{iid}") { request, context in try await show(request, context: context) }
        routes.patch("children/{id}/imports/{iid}/suggestions/{n}") { request, context in try await change(request, context: context) }
        routes.post("children/{id}/imports/{iid}/commit") { request, context in try await commit(request, context: context) }
    }

    // MARK: receiving

    enum Format: String {
        case text, csv, json, pdf, image
    }

    func receive(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        let zone = try await access.timeZone(of: user)
        let today = CalendarDay(Date(), in: zone)
        var day = today
        if let text = request.uri.queryParameters.get("day") {
            guard let parsed = CalendarDay(isoDate: text) else { throw APIError.invalid("day", "day must be a date (YYYY-MM-DD)") }
            guard parsed <= today else { throw APIError.invalid("day", "day must not be after today") }
            day = parsed
        }
        let filename = request.uri.queryParameters.get("filename").map { String($0.prefix(200)) }
        let body = try await ImageUpload.body(request)
        let format = try Self.format(of: body, contentType: request.headers[.contentType], filename: filename)
        let text = try await self.text(of: body, format: format)
        let reading = try await reader.read(text, format: format == .csv ? .csv : format == .json ? .json : .text, householdId: child.householdId)
        let parsed = reading.parse
        guard !parsed.suggestions.isEmpty else {
            throw APIError(.unprocessableContent, code: "nothing_to_import", message: format == .image
                ? "no entries could be read in the photo (is it a daycare sheet, in focus?)"
                : "no entries with a time could be read in the file", field: "body")
        }
        let importId = EventIdentity.newId("daycare_import")
        let event = DaycareImportReceivedV2(
            importId: importId, childId: child.childId, householdId: child.householdId, uploadedBy: user, filename: filename, format: format.rawValue,
            reportDay: day.isoDate, timeZone: zone.identifier,
            suggestions: parsed.suggestions.map {
                ImportSuggestion(kind: $0.kind.rawValue, start: $0.start, end: $0.end, amountMl: $0.amountMl, details: $0.details, line: $0.line)
            },
            unreadLines: parsed.unreadLines, parser: reading.parser)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        var answer = try await view(importId, child: child)
        answer.status = .created
        return answer
    }

    /// What the file is, told by its first bytes where it can be (PDF, PNG, JPEG), else by what the
    /// client says (`Content-Type`, then the file name). Anything else, HEIC included, is a 415.
    static func format(of body: Data, contentType: String?, filename: String?) throws -> Format {
        let head = [UInt8](body.prefix(16))
        if head.starts(with: Array("%PDF-".utf8)) { return .pdf }
        do {
            _ = try PhotoFormat.sniff(body)
            return .image
        } catch .heic {
            throw APIError(.unsupportedMediaType, code: "unsupported_file", message: "HEIC photos are not accepted: send a JPEG or PNG", field: "body")
        } catch {
            // Not a picture: text of some kind, or nothing we read.
        }
        guard String(data: body, encoding: .utf8) != nil, !head.contains(0) else {
            throw APIError(.unsupportedMediaType, code: "unsupported_file", message: "a report must be text, CSV, JSON, PDF, PNG or JPEG", field: "body")
        }
        let type = contentType?.lowercased() ?? ""
        let name = filename?.lowercased() ?? ""
        if type.hasPrefix("text/csv") || name.hasSuffix(".csv") { return .csv }
        if type.hasPrefix("application/json") || name.hasSuffix(".json") { return .json }
        return .text
    }

    private func text(of body: Data, format: Format) async throws -> String {
        switch format {
        case .text, .csv, .json:
            return String(decoding: body, as: UTF8.self)
        case .pdf:
            do {
                return try await tools.pdfText(body)
            } catch ToolRunner.Failure.failed {
                throw APIError.invalid("body", "the PDF could not be read (damaged, or protected)")
            }
        case .image:
            do {
                let text = try await tools.imageText(body)
                guard text.contains(where: { $0.isLetter || $0.isNumber }) else {
                    throw APIError(.unprocessableContent, code: "nothing_to_import", message: "no text could be read in the photo", field: "body")
                }
                return text
            } catch ToolRunner.Failure.failed {
                throw APIError.invalid("body", "the image could not be read")
            }
        }
    }

    // MARK: reading

    struct StoredImport: Sendable {
        var importId: UUID
        var format: String
        var filename: String?
        var reportDay: String
        var zone: TimeZone
        var unreadLines: [Int]
        var committedAt: Date?
        var parser: String
    }

    struct StoredSuggestion: Sendable {
        var index: Int
        var kind: String
        var start: Int
        var end: Int?
        var amountMl: Double?
        var details: String
        var line: Int
        var keep: Bool
        var edited: Bool
        var logId: UUID?
    }

    private func stored(_ importId: UUID, child: TrackedChild) async throws -> (StoredImport, [StoredSuggestion])? {
        var found: StoredImport?
        let rows = try await client.query(
            """
            SELECT import_id, format, filename, to_char(report_day, 'YYYY-MM-DD'), time_zone, unread_lines, committed_at, parser FROM daycare_imports
            WHERE import_id = \(importId) AND child_id = \(child.childId) AND household_id = \(child.householdId)
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String?, String, String, [Int], Date?, String).self) {
            found = StoredImport(
                importId: row.0, format: row.1, filename: row.2, reportDay: row.3, zone: TimeZone(identifier: row.4) ?? .gmt, unreadLines: row.5,
                committedAt: row.6, parser: row.7)
        }
        guard let found else { return nil }
        var suggestions: [StoredSuggestion] = []
        let suggestionRows = try await client.query(
            """
            SELECT index, kind, start_minute, end_minute, amount_ml, details, line, keep, edited, log_id FROM daycare_import_suggestions
            WHERE import_id = \(importId) ORDER BY index
            """, logger: logger)
        for try await row in suggestionRows.decode((Int, String, Int, Int?, Double?, String, Int, Bool, Bool, UUID?).self) {
            suggestions.append(StoredSuggestion(
                index: row.0, kind: row.1, start: row.2, end: row.3, amountMl: row.4, details: row.5, line: row.6, keep: row.7, edited: row.8, logId: row.9))
        }
        return (found, suggestions)
    }

    func show(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, child) = try await access.child(request, context: context)
        return try await view(try Self.importId(context), child: child)
    }

    /// The import with each suggestion's time on the report's day and its conflicts with the
    /// child's logs: a nap over another sleep, a feed within 10 minutes of another, a time outside
    /// the daycare day.
    func view(_ importId: UUID, child: TrackedChild) async throws -> TrackingJSON {
        guard let (stored, suggestions) = try await stored(importId, child: child) else { throw APIError.notFound("import") }
        let day = CalendarDay(isoDate: stored.reportDay) ?? CalendarDay(Date(), in: stored.zone)
        let dayStart = SummaryRoutes.midnight(day, stored.zone)
        let logs = try await readModel.logs(
            child: child.childId, kinds: [.feed, .sleep], from: dayStart.addingTimeInterval(-86_400), to: dayStart.addingTimeInterval(2 * 86_400))
            .filter { $0.importId != importId }
        let items: [JSONValue] = suggestions.map { suggestion in
            let start = dayStart.addingTimeInterval(TimeInterval(suggestion.start * 60))
            let end = suggestion.end.map { dayStart.addingTimeInterval(TimeInterval($0 * 60)) }
            var conflicts: [JSONValue] = []
            if suggestion.start < DaycareReportParser.dayStartHour * 60 || suggestion.start > DaycareReportParser.dayEndHour * 60 {
                conflicts.append(.object(["code": .string("outside_daycare_day"), "message": .string("the time is outside the daycare day (06:00 to 19:00)")]))
            }
            if suggestion.kind == "nap", let other = logs.first(where: { $0.kind == .sleep && $0.at < (end ?? start.addingTimeInterval(60)) && ($0.endedAt ?? .distantFuture) > start }) {
                conflicts.append(.object([
                    "code": .string("overlapping_sleep"), "log_id": .string(other.logId.uuidString.lowercased()),
                    "message": .string("overlaps the sleep logged from \(Timestamp.format(other.at))"),
                ]))
            }
            if suggestion.kind == "feed", let other = logs.first(where: { $0.kind == .feed && abs($0.at.timeIntervalSince(start)) <= TrackingLogEnrichment.duplicateWindow }) {
                conflicts.append(.object([
                    "code": .string("possible_duplicate"), "log_id": .string(other.logId.uuidString.lowercased()),
                    "message": .string("a feed is logged at \(Timestamp.format(other.at)), within 10 minutes"),
                ]))
            }
            var fields: [String: JSONValue] = [
                "index": .number(Double(suggestion.index)), "kind": .string(suggestion.kind), "start": .string(SuggestedLog.clock(suggestion.start)),
                "at": .string(Timestamp.format(start)), "details": .string(suggestion.details), "line": .number(Double(suggestion.line)),
                "keep": .bool(suggestion.keep), "edited": .bool(suggestion.edited), "conflicts": .array(conflicts),
            ]
            if let endMinute = suggestion.end { fields["end"] = .string(SuggestedLog.clock(endMinute)) }
            if let amount = suggestion.amountMl { fields["amount_ml"] = .number(amount) }
            if let logId = suggestion.logId { fields["log_id"] = .string(logId.uuidString.lowercased()) }
            return .object(fields)
        }
        return TrackingJSON(value: .object([
            "import_id": .string(importId.uuidString.lowercased()), "child_id": .string(child.childId.uuidString.lowercased()),
            "format": .string(stored.format), "parser": .string(stored.parser), "filename": stored.filename.map(JSONValue.string) ?? .null, "day": .string(stored.reportDay),
            "unread_lines": .array(stored.unreadLines.map { .number(Double($0)) }), "suggestions": .array(items),
            "committed": .bool(stored.committedAt != nil), "committed_at": stored.committedAt.map { .string(Timestamp.format($0)) } ?? .null,
        ]))
    }

    // MARK: changing

    struct ChangeBody: Decodable {
        var keep: Bool?
        var kind: String?
        var start: String?
        var end: String?
        var amountMl: Double?
        var details: String?

        enum CodingKeys: String, CodingKey {
            case keep, kind, start, end
            case amountMl = "amount_ml"
            case details
        }
    }

    func change(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        let importId = try Self.importId(context)
        guard let index = context.parameters.get("n").flatMap(Int.init), index >= 0 else { throw APIError.invalid("n", "n must be a suggestion's index") }
        guard let (stored, suggestions) = try await stored(importId, child: child) else { throw APIError.notFound("import") }
        guard let current = suggestions.first(where: { $0.index == index }) else { throw APIError.notFound("suggestion") }
        guard stored.committedAt == nil else { throw APIError(.conflict, code: "already_committed", message: "the import was committed: change the logs it wrote") }
        let body = try await JSONRequestBody.decode(ChangeBody.self, from: request, context: context)
        var edited: ImportSuggestion?
        if body.kind != nil || body.start != nil || body.end != nil || body.amountMl != nil || body.details != nil {
            let kinds = SuggestedLog.Kind.allCases.map(\.rawValue)
            let kind = body.kind ?? current.kind
            guard kinds.contains(kind) else { throw APIError.invalid("kind", "kind must be one of \(kinds.joined(separator: ", "))") }
            let start = try body.start.map { try Self.minutes($0, field: "start") } ?? current.start
            let end = try body.end.map { try Self.minutes($0, field: "end") } ?? current.end
            if let end, end <= start { throw APIError.invalid("end", "end must be after start") }
            if let amount = body.amountMl, !(amount > 0 && amount <= TrackingLogInput.maxBottleMl) {
                throw APIError.invalid("amount_ml", "amount_ml must be more than 0 and at most \(Int(TrackingLogInput.maxBottleMl))")
            }
            let details = body.details?.trimmingCharacters(in: .whitespacesAndNewlines) ?? current.details
            guard details.count <= TrackingLogInput.maxTextLength else { throw APIError.invalid("details", "details must be at most 500 characters") }
            edited = ImportSuggestion(kind: kind, start: start, end: end, amountMl: body.amountMl ?? current.amountMl, details: details, line: current.line)
        }
        let position = try await publisher.publish(
            DaycareImportSuggestionChanged(
                importId: importId, childId: child.childId, householdId: child.householdId, index: index, keep: body.keep ?? current.keep,
                suggestion: edited, changedBy: user),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        return try await view(importId, child: child)
    }

    static func minutes(_ text: String, field: String) throws -> Int {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes) else {
            throw APIError.invalid(field, "\(field) must be a time of day (HH:MM)")
        }
        return hours * 60 + minutes
    }

    // MARK: committing

    /// Writes every kept suggestion as a log (a nap as a sleep, a feed as a bottle, a diaper, solids,
    /// a dose; notes are not logs), each under a `client_id` derived from the import and the
    /// suggestion so a retried commit writes nothing twice; then records the commit. A second
    /// commit answers the first.
    func commit(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        let importId = try Self.importId(context)
        guard let (stored, suggestions) = try await stored(importId, child: child) else { throw APIError.notFound("import") }
        if stored.committedAt != nil { return try await view(importId, child: child) }
        let day = CalendarDay(isoDate: stored.reportDay) ?? CalendarDay(Date(), in: stored.zone)
        let dayStart = SummaryRoutes.midnight(day, stored.zone)
        var indices: [Int] = []
        var logIds: [UUID] = []
        var skipped: [JSONValue] = []
        var last: EventPosition?
        for suggestion in suggestions where suggestion.keep {
            guard let (kind, fields) = Self.logFields(suggestion, dayStart: dayStart) else {
                skipped.append(.object(["index": .number(Double(suggestion.index)), "reason": .string("a note is not a log")]))
                continue
            }
            let input: TrackingLogInput
            do {
                input = try TrackingLogInput.parse(kind, fields, context: .init(now: Date(), birthdate: child.birth, timeZone: stored.zone))
            } catch {
                skipped.append(.object(["index": .number(Double(suggestion.index)), "reason": .string("\(error.field): \(error.message)")]))
                continue
            }
            let clientId = "import:\(importId.uuidString.lowercased()):\(suggestion.index)"
            let logId = TrackingLogRoutes.logId(child: child.childId, clientId: clientId)
            let (position, _) = try await TrackingLogRoutes.publish(
                kind.logged(logId: logId, childId: child.childId, householdId: child.householdId, loggedBy: user, clientId: clientId, at: input.at, detail: input.detail),
                publisher: publisher, correlationId: context.correlationId)
            last = position
            indices.append(suggestion.index)
            logIds.append(logId)
        }
        if let last { try await consistency.awaitApplied(last, projections: [TrackingLogRoutes.projection]) }
        // A log the projection did not keep (a nap over a sleep logged since) is not the import's.
        var kept: [(Int, UUID)] = []
        for (index, logId) in zip(indices, logIds) {
            if let log = try await readModel.log(logId, child: child.childId), !log.deleted {
                kept.append((index, logId))
            } else {
                skipped.append(.object(["index": .number(Double(index)), "reason": .string("it conflicts with a log of the child (an overlapping sleep)")]))
            }
        }
        let position = try await publisher.publish(
            DaycareImportCommitted(
                importId: importId, childId: child.childId, householdId: child.householdId, committedBy: user, indices: kept.map(\.0), logIds: kept.map(\.1)),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        var answer = try await view(importId, child: child)
        answer.value["skipped"] = .array(skipped)
        return answer
    }

    /// The body a suggestion would be as a log of its kind.
    static func logFields(_ suggestion: StoredSuggestion, dayStart: Date) -> (TrackingLogKind, [String: JSONValue])? {
        let at = JSONValue.string(Timestamp.format(dayStart.addingTimeInterval(TimeInterval(suggestion.start * 60))))
        let notes = JSONValue.string(String(suggestion.details.prefix(TrackingLogInput.maxTextLength)))
        switch suggestion.kind {
        case "nap":
            var fields: [String: JSONValue] = ["at": at, "period": .string("nap"), "notes": notes]
            if let end = suggestion.end { fields["ended_at"] = .string(Timestamp.format(dayStart.addingTimeInterval(TimeInterval(end * 60)))) }
            return (.sleep, fields)
        case "feed":
            return (.feed, ["at": at, "method": .string("bottle"), "amount_ml": suggestion.amountMl.map(JSONValue.number) ?? .null, "notes": notes])
        case "diaper":
            let contents = ["wet", "dirty", "both"].contains(suggestion.details) ? suggestion.details : "wet"
            return (.diaper, ["at": at, "contents": .string(contents)])
        case "solids":
            return (.feed, ["at": at, "method": .string("solids"), "foods": .array([.string(String(suggestion.details.prefix(100)))])])
        case "medication":
            return (.medication, [
                "at": at, "name": .string(String(suggestion.details.prefix(100))), "dose": suggestion.amountMl.map(JSONValue.number) ?? .null,
                "dose_unit": .string("ml"),
            ])
        default:
            return nil
        }
    }

    static func importId(_ context: HearthRequestContext) throws -> UUID {
        guard let id = context.parameters.get("iid").flatMap(UUID.init(uuidString:)) else { throw APIError.invalid("iid", "the import id must be a UUID") }
        return id
    }
}
