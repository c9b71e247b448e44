import Foundation
import HearthEvents

/// What a model is asked for when it reads a daycare sheet, and how its answer is checked.
///
/// The model sees the sheet's text with numbered lines and answers `{"logs": [...]}`. Nothing it
/// says is trusted as it is: each log must have a known kind, clock times that are times, an end
/// after its start, a plausible amount, a line that exists — and every time it gives must be
/// written somewhere on the sheet, so a model cannot invent a feed at a time the daycare never
/// wrote. A log that fails is dropped (and counted); a reply that is not the JSON asked for is
/// refused whole, and the caller reads the sheet with the rules instead.
public enum DaycareReportSchema {
    public static let name = "daycare_logs"
    /// A day sheet is one page; more logs than this is a reply gone wrong, not a busy day.
    public static let maxLogs = 80

    static let logKeys: Set<String> = ["kind", "start", "end", "amount_ml", "details", "line"]

    public static var schema: JSONValue {
        let log: JSONValue = .object([
            "type": .string("object"),
            "additionalProperties": .bool(false),
            "required": .array(["kind", "start", "end", "amount_ml", "details", "line"].map(JSONValue.string)),
            "properties": .object([
                "kind": .object(["type": .string("string"), "enum": .array(SuggestedLog.Kind.allCases.map { .string($0.rawValue) })]),
                "start": .object(["type": .string("string"), "description": .string("24-hour local time HH:mm as written on the sheet")]),
                "end": .object(["type": .array([.string("string"), .string("null")]), "description": .string("HH:mm when the sheet gives an end (a nap's wake-up), else null")]),
                "amount_ml": .object(["type": .array([.string("number"), .string("null")]), "description": .string("a bottle's or liquid medicine's volume in millilitres (1 oz = 29.57 ml), else null")]),
                "details": .object(["type": .string("string"), "description": .string("the sheet's own words without the times; for a diaper exactly wet, dirty or both")]),
                "line": .object(["type": .string("integer"), "description": .string("the number of the line the log is read from")]),
            ]),
        ])
        return .object([
            "type": .string("object"),
            "additionalProperties": .bool(false),
            "required": .array([.string("logs")]),
            "properties": .object(["logs": .object(["type": .string("array"), "items": log])]),
        ])
    }

    public static var systemPrompt: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let schemaText = (try? encoder.encode(schema)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return """
            You read one day's report from a child's daycare and list what happened to the child: naps, feeds \
            (bottles, nursing), diapers, solid food, medication and notes for the parents. Give each entry its kind, \
            its start time (and end time for a nap) as 24-hour HH:mm exactly as the sheet says (2:05 in the afternoon \
            is 14:05), the volume in millilitres when one is given, the sheet's words without the times, and the \
            number of the line it is on. Leave out headers, the child's name, staff names and anything without a \
            time. Never add an entry the sheet does not state. Answer with JSON only, matching this schema: \(schemaText)
            """
    }

    /// The sheet with numbered lines, so the reply can say where each log came from.
    public static func prompt(_ text: String, format: DaycareReportFormat) -> String {
        let lines = text.components(separatedBy: "\n")
        var out = "Format: \(format.rawValue)\nReport:\n"
        for (index, line) in lines.enumerated() { out += "\(index + 1): \(line)\n" }
        return out
    }
}

/// Why a model's daycare reading was refused whole.
public enum DaycareReportReplyError: Error, Equatable, Sendable, CustomStringConvertible {
    case notJSON
    case notMatchingSchema(String)

    public var description: String {
        switch self {
        case .notJSON: return "the reply is not JSON"
        case .notMatchingSchema(let reason): return "the reply does not match the schema: \(reason)"
        }
    }
}

/// A model's reading of a sheet, checked: the logs kept and why the others were dropped.
public struct DaycareReportReply: Sendable, Equatable {
    public struct Dropped: Sendable, Equatable {
        public var index: Int
        public var reason: String
    }

    public var logs: [SuggestedLog]
    public var dropped: [Dropped]

    public static func parse(_ reply: String, source: String) throws(DaycareReportReplyError) -> DaycareReportReply {
        let document: JSONValue
        do { document = try JSONDecoder().decode(JSONValue.self, from: Data(ProfileFactReply.unfenced(reply).utf8)) } catch { throw .notJSON }
        guard case .object(let fields) = document else { throw .notMatchingSchema("the reply must be an object") }
        guard Set(fields.keys) == ["logs"] else { throw .notMatchingSchema("the reply must have exactly the key logs") }
        guard case .array(let items)? = fields["logs"] else { throw .notMatchingSchema("logs must be an array") }
        guard items.count <= DaycareReportSchema.maxLogs else { throw .notMatchingSchema("more than \(DaycareReportSchema.maxLogs) logs") }

        let lineCount = source.components(separatedBy: "\n").count
        let written = SheetTimes.mentioned(in: source)
        var result = DaycareReportReply(logs: [], dropped: [])
        for (index, item) in items.enumerated() {
            switch log(item, lineCount: lineCount, written: written) {
            case .success(let log):
                if !result.logs.contains(log) { result.logs.append(log) }
            case .failure(let reason):
                result.dropped.append(Dropped(index: index, reason: reason.text))
            }
        }
        result.logs.sort { ($0.start, $0.line) < ($1.start, $1.line) }
        return result
    }

    struct Reason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    private static func log(_ item: JSONValue, lineCount: Int, written: Set<Int>) -> Result<SuggestedLog, Reason> {
        guard case .object(let fields) = item else { return .failure(Reason("not an object")) }
        guard Set(fields.keys).isSubset(of: DaycareReportSchema.logKeys) else { return .failure(Reason("unknown keys")) }
        guard case .string(let kindText)? = fields["kind"], let kind = SuggestedLog.Kind(rawValue: kindText) else {
            return .failure(Reason("kind must be one of \(SuggestedLog.Kind.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        guard case .string(let startText)? = fields["start"], let start = clockMinutes(startText) else { return .failure(Reason("start must be HH:mm")) }
        var end: Int?
        switch fields["end"] ?? .null {
        case .null: end = nil
        case .string(let text):
            guard let minutes = clockMinutes(text) else { return .failure(Reason("end must be HH:mm or null")) }
            guard minutes > start else { return .failure(Reason("end must be after start")) }
            end = minutes
        default: return .failure(Reason("end must be HH:mm or null"))
        }
        if end != nil, kind != .nap { end = nil }
        var amount: Double?
        switch fields["amount_ml"] ?? .null {
        case .null: amount = nil
        case .number(let value):
            guard value > 0, value <= TrackingLogInput.maxBottleMl else {
                return .failure(Reason("amount_ml must be more than 0 and at most \(Int(TrackingLogInput.maxBottleMl))"))
            }
            amount = (value * 10).rounded() / 10
        default: return .failure(Reason("amount_ml must be a number or null"))
        }
        guard case .string(let rawDetails)? = fields["details"] else { return .failure(Reason("details must be a string")) }
        var details = String(rawDetails.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
        if kind == .diaper {
            let lowered = details.lowercased()
            let wet = lowered.contains("wet") || lowered.contains("pee"), dirty = lowered.contains("dirty") || lowered.contains("poo") || lowered.contains("bm")
            details = wet && dirty ? "both" : dirty ? "dirty" : wet ? "wet" : (lowered == "both" ? "both" : details)
        }
        guard case .number(let lineValue)? = fields["line"], lineValue == lineValue.rounded(), lineValue >= 1, lineValue <= Double(lineCount) else {
            return .failure(Reason("line must be a line of the report"))
        }
        guard written.contains(start), end.map(written.contains) ?? true else {
            return .failure(Reason("a time the report does not give"))
        }
        return .success(SuggestedLog(kind: kind, start: start, end: end, amountMl: amount, details: details, line: Int(lineValue)))
    }

    /// "14:05" → 845; anything else (no colon, 24:00, 7:5) → nil.
    static func clockMinutes(_ text: String) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }
}

/// The clock times a sheet writes, as minutes since midnight: "14:05", "2:05", "2.05pm",
/// "10h15", "2pm". A time without am/pm at 1–12 o'clock counts both ways (a sheet's "2:05" nap
/// is 14:05), because daycares rarely write the afternoon's hours in 24-hour form.
enum SheetTimes {
    static func mentioned(in text: String) -> Set<Int> {
        var found = Set<Int>()
        let lowered = text.lowercased()
        let pattern = #/([0-9]{1,2})(?:[:.h]([0-9]{2}))?\s?(am|pm|a\.m\.|p\.m\.)?/#
        for match in lowered.matches(of: pattern) {
            // Digits of a longer number ("2024", "120ml") are not a time.
            if match.range.lowerBound > lowered.startIndex, lowered[lowered.index(before: match.range.lowerBound)].isNumber { continue }
            if match.range.upperBound < lowered.endIndex, lowered[match.range.upperBound].isNumber { continue }
            guard let hour = Int(match.output.1) else { continue }
            let minute = match.output.2.flatMap { Int($0) }
            let meridiem = match.output.3.map { String($0).replacingOccurrences(of: ".", with: "") }
            // A bare number ("4 oz", "2 wet") is not a time; an hour alone is one only with am/pm.
            guard minute != nil || meridiem != nil else { continue }
            let minutes = minute ?? 0
            guard minutes < 60 else { continue }
            switch meridiem {
            case "am"?:
                guard (1...12).contains(hour) else { continue }
                found.insert((hour % 12) * 60 + minutes)
            case "pm"?:
                guard (1...12).contains(hour) else { continue }
                found.insert((hour % 12 + 12) * 60 + minutes)
            default:
                guard hour < 24 else { continue }
                found.insert(hour * 60 + minutes)
                if (1...11).contains(hour) { found.insert((hour + 12) * 60 + minutes) }
                if hour == 12 { found.insert(minutes) }
            }
        }
        return found
    }
}
