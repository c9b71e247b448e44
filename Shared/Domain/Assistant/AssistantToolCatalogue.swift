import Foundation
import HearthEvents

/// One tool as a model is offered it: the name it calls, a line saying when to call it, and the
/// JSON schema of its arguments.
public struct AssistantToolDefinition: Sendable, Equatable {
    public let name: String
    public let description: String
    public let parameters: JSONValue

    public init(name: String, description: String, parameters: JSONValue) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }
}

/// The assistant's tools for a model that calls functions: the four that propose an
/// `AssistantIntent` (nothing is done until a household member confirms) and the two that only
/// read.
///
/// The schemas are in OpenAI's strict form (no other properties, every property required, an
/// optional value typed `["string", "null"]`), so a provider that enforces schemas can send them
/// as they are. Formats and ranges are stated in the descriptions rather than as `pattern` or
/// `minimum`, which not every strict implementation accepts; `AssistantToolCallValidator`
/// enforces them on every call either way, because a model's arguments are never trusted as
/// they come.
public enum AssistantToolCatalogue {
    /// The longest reminder title, calendar title or chore name, in Unicode scalars. The regex
    /// parser takes its titles from the user's own sentence and sets no limit; a model can write
    /// anything, so its titles are held to what the gateway's reminder and calendar endpoints
    /// accept (200).
    public static let maxTitleLength = 200
    /// The longest message text, in Unicode scalars: what the chat endpoint accepts.
    public static let maxMessageLength = 4000
    /// The longest search query, in Unicode scalars: a query is a few words, not a passage.
    public static let maxQueryLength = 500
    /// A chore's length in minutes: at least one, at most a working day.
    public static let choreMinutes = 1...480

    /// All six tools, the proposing ones first.
    public static let definitions: [AssistantToolDefinition] = Tool.allCases.map(\.definition)

    /// The tools whose call becomes a proposal the family confirms.
    public static let proposable: [AssistantToolDefinition] = Tool.allCases.filter(\.proposes).map(\.definition)

    /// The tools whose call only reads (`AssistantLookup`).
    public static let readOnly: [AssistantToolDefinition] = Tool.allCases.filter { !$0.proposes }.map(\.definition)

    public static func definition(named name: String) -> AssistantToolDefinition? {
        Tool(rawValue: name)?.definition
    }

    /// The tools, with their arguments in the order the schemas list them. The schema and the
    /// validator's key check are both built from this, so they cannot disagree.
    enum Tool: String, CaseIterable, Sendable {
        case setReminder = "set_reminder"
        case createCalendarEvent = "create_calendar_event"
        case addChore = "add_chore"
        case sendMessage = "send_message"
        case searchMessages = "search_messages"
        case getProfile = "get_profile"

        var proposes: Bool {
            switch self {
            case .setReminder, .createCalendarEvent, .addChore, .sendMessage: true
            case .searchMessages, .getProfile: false
            }
        }

        var summary: String {
            switch self {
            case .setReminder:
                "Propose a reminder that notifies the user, or tells them about another household member, at a local date and time; the family confirms it before it is set."
            case .createCalendarEvent:
                "Propose an entry on the household's shared calendar, timed or all-day; the family confirms it before it is added."
            case .addChore:
                "Propose a household chore on a given local day and time, for a named member or the user; the family confirms it before it is added."
            case .sendMessage:
                "Propose a chat message from the user to another household member; the user confirms it before it is sent."
            case .searchMessages:
                "Search the user's household chats for messages about something, to answer from and cite them."
            case .getProfile:
                "Read what the household has recorded about a member (allergies, diets, routines, goals), or about the user when member is null."
            }
        }

        var parameters: [Parameter] {
            let memberName = "spelled as in the household's member list (a full name, or a first name no other member shares)"
            let title = "at most \(AssistantToolCatalogue.maxTitleLength) characters"
            switch self {
            case .setReminder:
                return [
                    Parameter("title", .string, "what to remind about, as a short phrase, \(title)"),
                    Parameter("at", .string, "when, as a local date-time YYYY-MM-DDTHH:mm in the household's time zone (no offset); not in the past"),
                    Parameter("member", .nullableString, "the household member the reminder is about, \(memberName); null when it is for the user"),
                ]
            case .createCalendarEvent:
                return [
                    Parameter("title", .string, "the entry's title, \(title)"),
                    Parameter("start", .string, "local date-time YYYY-MM-DDTHH:mm in the household's time zone (no offset); for an all-day entry the first day, YYYY-MM-DD"),
                    Parameter("end", .string, "local date-time YYYY-MM-DDTHH:mm after start; for an all-day entry the last day, YYYY-MM-DD (inclusive, so a one-day entry has end equal to start)"),
                    Parameter("all_day", .boolean, "true for an entry that takes whole days (start and end are then dates), false for a timed one"),
                ]
            case .addChore:
                return [
                    Parameter("chore", .string, "the chore, as a short phrase, \(title)"),
                    Parameter("assignee", .nullableString, "the household member who does it, \(memberName); null for the user"),
                    Parameter("day", .string, "the local day, YYYY-MM-DD"),
                    Parameter("time", .string, "the local time of day it starts, HH:mm (24-hour)"),
                    Parameter("minutes", .integer, "how long it takes, \(AssistantToolCatalogue.choreMinutes.lowerBound) to \(AssistantToolCatalogue.choreMinutes.upperBound) minutes"),
                ]
            case .sendMessage:
                return [
                    Parameter("recipient", .string, "the household member to message, \(memberName)"),
                    Parameter("text", .string, "the message, in the user's voice, at most \(AssistantToolCatalogue.maxMessageLength) characters"),
                ]
            case .searchMessages:
                return [
                    Parameter("query", .string, "what to look for, in a few words, at most \(AssistantToolCatalogue.maxQueryLength) characters"),
                ]
            case .getProfile:
                return [
                    Parameter("member", .nullableString, "the household member to read about, \(memberName); null for the user"),
                ]
            }
        }

        var definition: AssistantToolDefinition {
            let names = parameters.map(\.name)
            return AssistantToolDefinition(
                name: rawValue, description: summary,
                parameters: .object([
                    "type": .string("object"),
                    "additionalProperties": .bool(false),
                    "required": .array(names.map(JSONValue.string)),
                    "properties": .object(Dictionary(uniqueKeysWithValues: parameters.map { ($0.name, $0.schema) })),
                ]))
        }
    }

    struct Parameter: Sendable {
        enum Kind: Sendable {
            case string, nullableString, boolean, integer
        }

        let name: String
        let kind: Kind
        let description: String

        init(_ name: String, _ kind: Kind, _ description: String) {
            self.name = name
            self.kind = kind
            self.description = description
        }

        var schema: JSONValue {
            let type: JSONValue = switch kind {
            case .string: .string("string")
            case .nullableString: .array([.string("string"), .string("null")])
            case .boolean: .string("boolean")
            case .integer: .string("integer")
            }
            return .object(["type": type, "description": .string(description)])
        }
    }
}

/// What a read-only tool call asks for.
public enum AssistantLookup: Sendable, Equatable {
    case searchMessages(query: String)
    /// `member` is nil for the user who asked.
    case profile(member: NamedMember?)

    /// The tool's name, as the model called it.
    public var tool: String {
        switch self {
        case .searchMessages: AssistantToolCatalogue.Tool.searchMessages.rawValue
        case .profile: AssistantToolCatalogue.Tool.getProfile.rawValue
        }
    }
}

/// A model's tool call that passed every check.
public enum AssistantToolCallOutcome: Sendable, Equatable {
    /// An action to propose; it is done only once a household member confirms it.
    case proposal(AssistantIntent)
    /// A name that fits more than one member (two members whose first name is Sam): the user
    /// must say which, and a guess would act on the wrong person. `argument` is the argument that
    /// held the name, `written` the name as the model wrote it, `choices` the members it fits, in
    /// the household's order.
    case ambiguous(argument: String, written: String, choices: [NamedMember])
    case lookup(AssistantLookup)
}

/// Why a tool call cannot be used. `code` is stable for programs (and metrics); `reason` is a
/// sentence that names the argument, meant to go back to the model (see `toolResult`) so that
/// it can correct the call.
public struct AssistantToolCallRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable, CaseIterable {
        case unknownTool = "unknown_tool"
        /// The arguments are not JSON, or not a JSON object.
        case argumentsNotJSON = "arguments_not_json"
        case missingArgument = "missing_argument"
        case unexpectedArgument = "unexpected_argument"
        case wrongType = "wrong_type"
        case emptyValue = "empty_value"
        case tooLong = "too_long"
        /// A date or date-time that is not in the format asked for, or not a real day.
        case invalidDate = "invalid_date"
        /// A time of day that is not HH:mm.
        case invalidTime = "invalid_time"
        case endNotAfterStart = "end_not_after_start"
        case inThePast = "in_the_past"
        /// A number or date outside what Hearth accepts (a chore's minutes, a year, an event's length).
        case outOfRange = "out_of_range"
        case unknownMember = "unknown_member"
    }

    public let code: Code
    /// The argument at fault; nil when the call as a whole is (an unknown tool, arguments that are
    /// not a JSON object).
    public let argument: String?
    public let reason: String

    public init(_ code: Code, argument: String?, reason: String) {
        self.code = code
        self.argument = argument
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    /// The refusal as a tool result to send back to the model: `{"error", "argument", "reason"}`.
    public var toolResult: JSONValue {
        .object([
            "error": .string(code.rawValue),
            "argument": argument.map(JSONValue.string) ?? .null,
            "reason": .string(reason),
        ])
    }
}

/// Turns a model's tool call (a name and the raw JSON text of its arguments) into an
/// `AssistantIntent` to propose, a lookup, a question about an ambiguous name, or a refusal.
///
/// Everything a model writes is checked as a client's request would be: the exact set of
/// arguments, their types, lengths, dates that exist, an end after its start, a reminder not in
/// the past, and names that are household members. Dates and times are local to `timeZone`, like
/// the regex parser's; a local time that daylight saving skips is pushed forward, as calendar
/// applications do.
public struct AssistantToolCallValidator: Sendable {
    public let now: Date
    public let timeZone: TimeZone
    public let members: [NamedMember]

    public init(now: Date, timeZone: TimeZone, members: [NamedMember]) {
        self.now = now
        self.timeZone = timeZone
        self.members = members
    }

    /// - Parameters:
    ///   - tool: the function name the model called.
    ///   - arguments: the arguments exactly as the model wrote them (a JSON object as text).
    /// - Returns: `.ambiguous` only when every other argument is valid, so that the question to
    ///   the user is the last thing standing between the call and its proposal.
    public func validate(tool: String, arguments: String) throws(AssistantToolCallRefusal) -> AssistantToolCallOutcome {
        guard let known = AssistantToolCatalogue.Tool(rawValue: tool) else {
            let names = AssistantToolCatalogue.Tool.allCases.map(\.rawValue).joined(separator: ", ")
            throw AssistantToolCallRefusal(.unknownTool, argument: nil, reason: "there is no tool \(Self.quoted(tool)); the tools are \(names)")
        }
        let call = try Arguments(arguments, tool: known)
        switch known {
        case .setReminder: return try setReminder(call)
        case .createCalendarEvent: return try createCalendarEvent(call)
        case .addChore: return try addChore(call)
        case .sendMessage: return try sendMessage(call)
        case .searchMessages:
            return .lookup(.searchMessages(query: try call.text("query", limit: AssistantToolCatalogue.maxQueryLength)))
        case .getProfile:
            return try member(optionallyNamed: call.optionalName("member"), argument: "member")
                .outcome { .lookup(.profile(member: $0)) }
        }
    }

    // MARK: Tools

    // Each tool resolves its member names last, so that `.ambiguous` is only ever returned for a
    // call that is otherwise valid.

    private func setReminder(_ call: Arguments) throws(AssistantToolCallRefusal) -> AssistantToolCallOutcome {
        let title = try call.text("title", limit: AssistantToolCatalogue.maxTitleLength)
        let atText = try call.string("at")
        let at = try localDateTime(atText, argument: "at")
        // The format has no seconds, so a reminder for the current minute is not in the past.
        let startOfThisMinute = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 60).rounded(.down) * 60)
        guard at >= startOfThisMinute else {
            throw AssistantToolCallRefusal(
                .inThePast, argument: "at", reason: "at (\(atText)) is in the past; it is now \(localNow) in \(timeZone.identifier)")
        }
        return try member(optionallyNamed: call.optionalName("member"), argument: "member")
            .outcome { .proposal(.setReminder(.init(title: title, at: at, member: $0))) }
    }

    private func createCalendarEvent(_ call: Arguments) throws(AssistantToolCallRefusal) -> AssistantToolCallOutcome {
        let title = try call.text("title", limit: AssistantToolCatalogue.maxTitleLength)
        let startText = try call.string("start")
        let endText = try call.string("end")
        let allDay = try call.bool("all_day")
        let start: Date, end: Date
        if allDay {
            let first = try localDay(startText, argument: "start", meaning: "the all-day entry's first day")
            let last = try localDay(endText, argument: "end", meaning: "the all-day entry's last day")
            guard last >= first else {
                throw AssistantToolCallRefusal(
                    .endNotAfterStart, argument: "end",
                    reason: "end (\(last.isoDate)), the all-day entry's last day, is before start (\(first.isoDate))")
            }
            start = LocalTime.instant(day: first, secondsOfDay: 0, in: timeZone)
            end = LocalTime.instant(day: last.adding(days: 1), secondsOfDay: 0, in: timeZone)
        } else {
            start = try localDateTime(startText, argument: "start")
            end = try localDateTime(endText, argument: "end")
            guard end > start else {
                throw AssistantToolCallRefusal(.endNotAfterStart, argument: "end", reason: "end (\(endText)) must be after start (\(startText))")
            }
        }
        guard end.timeIntervalSince(start) <= CalendarTimeInput.maxDuration else {
            let days = Int(CalendarTimeInput.maxDuration / 86_400)
            throw AssistantToolCallRefusal(.outOfRange, argument: "end", reason: "end is more than \(days) days after start; an entry may last at most \(days) days")
        }
        return .proposal(.createCalendarEvent(.init(title: title, start: start, end: end, allDay: allDay)))
    }

    private func addChore(_ call: Arguments) throws(AssistantToolCallRefusal) -> AssistantToolCallOutcome {
        let chore = try call.text("chore", limit: AssistantToolCatalogue.maxTitleLength)
        let assigneeName = try call.optionalName("assignee")
        let day = try localDay(call.string("day"), argument: "day", meaning: nil)
        let secondsOfDay = try timeOfDay(call.string("time"), argument: "time")
        let minutes = try call.integer("minutes")
        guard AssistantToolCatalogue.choreMinutes.contains(minutes) else {
            let range = AssistantToolCatalogue.choreMinutes
            throw AssistantToolCallRefusal(
                .outOfRange, argument: "minutes", reason: "minutes (\(minutes)) must be from \(range.lowerBound) to \(range.upperBound)")
        }
        return try member(optionallyNamed: assigneeName, argument: "assignee")
            .outcome { .proposal(.addChore(.init(chore: chore, assignee: $0, day: day, secondsOfDay: secondsOfDay, minutes: minutes))) }
    }

    private func sendMessage(_ call: Arguments) throws(AssistantToolCallRefusal) -> AssistantToolCallOutcome {
        let recipientName = try call.text("recipient", limit: nil)
        let text = try call.text("text", limit: AssistantToolCatalogue.maxMessageLength)
        return try member(named: recipientName, argument: "recipient")
            .outcome { .proposal(.sendMessage(.init(recipient: $0, text: text))) }
    }

    // MARK: Members

    /// A name resolved to what it names, or the question to ask instead.
    enum Resolution<Value> {
        case found(Value)
        case ambiguous(AssistantToolCallOutcome)

        func outcome(_ make: (Value) -> AssistantToolCallOutcome) -> AssistantToolCallOutcome {
            switch self {
            case .found(let value): make(value)
            case .ambiguous(let outcome): outcome
            }
        }
    }

    /// Case and diacritics are ignored ("zoe" is Zoë). The full name wins; otherwise the first
    /// name, which must belong to one member only.
    func member(named written: String, argument: String) throws(AssistantToolCallRefusal) -> Resolution<NamedMember> {
        let wanted = Self.folded(written)
        var unique: [NamedMember] = []
        for member in members where !unique.contains(where: { $0.memberId == member.memberId }) { unique.append(member) }
        var matches = unique.filter { Self.folded($0.name) == wanted }
        if matches.isEmpty {
            matches = unique.filter { Self.folded($0.name).split(separator: " ").first.map(String.init) == wanted }
        }
        switch matches.count {
        case 1:
            return .found(matches[0])
        case 0:
            let names = unique.map(\.name).joined(separator: ", ")
            throw AssistantToolCallRefusal(
                .unknownMember, argument: argument,
                reason: "\(argument) \(Self.quoted(written)) is not a member of the household; the members are \(names.isEmpty ? "(none)" : names)")
        default:
            return .ambiguous(.ambiguous(argument: argument, written: written, choices: matches))
        }
    }

    /// nil (no name written) stays nil: the user who asked.
    func member(optionallyNamed written: String?, argument: String) throws(AssistantToolCallRefusal) -> Resolution<NamedMember?> {
        guard let written else { return .found(nil) }
        switch try member(named: written, argument: argument) {
        case .found(let member): return .found(member)
        case .ambiguous(let outcome): return .ambiguous(outcome)
        }
    }

    static func folded(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    // MARK: Dates and times

    private var localNow: String {
        let parts = LocalTime.components(of: now, in: timeZone)
        return parts.day.isoDate + "T" + Self.clock(parts.secondsOfDay)
    }

    static func clock(_ secondsOfDay: Int) -> String {
        String(format: "%02d:%02d", secondsOfDay / 3600, secondsOfDay % 3600 / 60)
    }

    /// `YYYY-MM-DDTHH:mm` (seconds are tolerated) in `timeZone`. An offset is refused rather than
    /// honoured: the schema asks for local time, and a model that adds `Z` usually means local
    /// time anyway, so honouring it would move the reminder by hours without a word.
    private func localDateTime(_ text: String, argument: String) throws(AssistantToolCallRefusal) -> Date {
        let format = "\(argument) (\(Self.quoted(text))) must be a local date-time YYYY-MM-DDTHH:mm in \(timeZone.identifier), without an offset"
        let characters = Array(text)
        guard characters.count >= 16, characters[10] == "T" || characters[10] == " " else {
            throw AssistantToolCallRefusal(.invalidDate, argument: argument, reason: format)
        }
        let day = try localDay(String(characters[0..<10]), argument: argument, meaning: nil, format: format)
        guard let seconds = Self.parseClock(String(characters[11...]), allowingSeconds: true) else {
            throw AssistantToolCallRefusal(.invalidDate, argument: argument, reason: format)
        }
        return LocalTime.instant(day: day, secondsOfDay: seconds, in: timeZone)
    }

    /// `YYYY-MM-DD`, a day that exists, in the years calendar entries may use.
    private func localDay(
        _ text: String, argument: String, meaning: String?, format: String? = nil
    ) throws(AssistantToolCallRefusal) -> CalendarDay {
        guard let day = CalendarDay(isoDate: text) else {
            throw AssistantToolCallRefusal(
                .invalidDate, argument: argument, reason: format ?? "\(argument) (\(Self.quoted(text)))\(meaning.map { ", \($0)," } ?? "") must be a date YYYY-MM-DD that exists")
        }
        let years = CalendarTimeInput.supportedYears
        guard years.contains(day.year) else {
            throw AssistantToolCallRefusal(
                .outOfRange, argument: argument, reason: "\(argument) must be in the years \(years.lowerBound) to \(years.upperBound)")
        }
        return day
    }

    private func timeOfDay(_ text: String, argument: String) throws(AssistantToolCallRefusal) -> Int {
        guard let seconds = Self.parseClock(text, allowingSeconds: false) else {
            throw AssistantToolCallRefusal(.invalidTime, argument: argument, reason: "\(argument) (\(Self.quoted(text))) must be a 24-hour time HH:mm")
        }
        return seconds
    }

    /// Seconds after midnight of `HH:mm` (or `HH:mm:ss`), or nil.
    static func parseClock(_ text: String, allowingSeconds: Bool) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || (allowingSeconds && parts.count == 3),
              parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        let second = parts.count == 3 ? Int(parts[2]) ?? 60 : 0
        guard second < 60 else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    static func quoted(_ text: String) -> String {
        "\"\(text.count > 60 ? String(text.prefix(60)) + "…" : text)\""
    }
}

extension AssistantToolCallValidator {
    /// A call's arguments, checked to be exactly the tool's, with typed reads that refuse with the
    /// argument's name.
    struct Arguments: Sendable {
        let tool: AssistantToolCatalogue.Tool
        let fields: [String: JSONValue]

        init(_ text: String, tool: AssistantToolCatalogue.Tool) throws(AssistantToolCallRefusal) {
            self.tool = tool
            let document: JSONValue
            do {
                document = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            } catch {
                throw AssistantToolCallRefusal(.argumentsNotJSON, argument: nil, reason: "the arguments of \(tool.rawValue) are not valid JSON")
            }
            guard case .object(let fields) = document else {
                throw AssistantToolCallRefusal(.argumentsNotJSON, argument: nil, reason: "the arguments of \(tool.rawValue) must be a JSON object")
            }
            let expected = tool.parameters.map(\.name)
            let list = expected.joined(separator: ", ")
            if let extra = fields.keys.filter({ !expected.contains($0) }).sorted().first {
                throw AssistantToolCallRefusal(
                    .unexpectedArgument, argument: extra, reason: "\(extra) is not an argument of \(tool.rawValue); its arguments are \(list)")
            }
            if let missing = expected.first(where: { fields[$0] == nil }) {
                throw AssistantToolCallRefusal(
                    .missingArgument, argument: missing, reason: "\(missing) is missing; \(tool.rawValue) takes \(list), each of them (null where allowed)")
            }
            self.fields = fields
        }

        func string(_ name: String) throws(AssistantToolCallRefusal) -> String {
            guard case .string(let text)? = fields[name] else { throw wrongType(name, "a string") }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A trimmed string that is not empty and, when `limit` is given, at most that many Unicode
        /// scalars (as the gateway counts).
        func text(_ name: String, limit: Int?) throws(AssistantToolCallRefusal) -> String {
            let text = try string(name)
            guard !text.isEmpty else { throw AssistantToolCallRefusal(.emptyValue, argument: name, reason: "\(name) must not be empty") }
            if let limit, text.unicodeScalars.count > limit {
                throw AssistantToolCallRefusal(
                    .tooLong, argument: name, reason: "\(name) is \(text.unicodeScalars.count) characters; it may be at most \(limit)")
            }
            return text
        }

        /// A name, or nil for `null`. An empty string is refused rather than read as null: the model
        /// is told to send null, and an empty name is more likely a lost one than a deliberate "me".
        func optionalName(_ name: String) throws(AssistantToolCallRefusal) -> String? {
            switch fields[name] {
            case .null?: return nil
            case .string?:
                let text = try string(name)
                guard !text.isEmpty else {
                    throw AssistantToolCallRefusal(.emptyValue, argument: name, reason: "\(name) must be a member's name, or null; it is empty")
                }
                return text
            default: throw wrongType(name, "a string or null")
            }
        }

        func bool(_ name: String) throws(AssistantToolCallRefusal) -> Bool {
            guard case .bool(let value)? = fields[name] else { throw wrongType(name, "true or false") }
            return value
        }

        func integer(_ name: String) throws(AssistantToolCallRefusal) -> Int {
            guard case .number(let value)? = fields[name], value.rounded() == value, abs(value) < 1e15 else {
                throw wrongType(name, "a whole number")
            }
            return Int(value)
        }

        private func wrongType(_ name: String, _ expected: String) -> AssistantToolCallRefusal {
            let found = switch fields[name] {
            case .null?, nil: "null"
            case .bool?: "a boolean"
            case .number(let value)?: value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
            case .string?: "a string"
            case .array?: "an array"
            case .object?: "an object"
            }
            return AssistantToolCallRefusal(.wrongType, argument: name, reason: "\(name) must be \(expected), not \(found)")
        }
    }
}
