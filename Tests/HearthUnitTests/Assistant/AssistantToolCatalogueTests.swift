import Foundation
@testable import HearthDomain
import HearthEvents
import Testing

@Suite struct AssistantToolCatalogueTests {
    static let samLee = NamedMember(memberId: UUID(), name: "Sam Lee")
    static let samPark = NamedMember(memberId: UUID(), name: "Sam Park")
    static let zoe = NamedMember(memberId: UUID(), name: "Zoë Müller")
    static let alex = NamedMember(memberId: UUID(), name: "Alex Morgan")
    static let members = [samLee, samPark, zoe, alex]
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// Friday 2026-03-27, 10:00 in Berlin (CET, UTC+1); summer time starts on Sunday the 29th.
    static let now = instant("2026-03-27T09:00:00Z")

    static func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func validator(members: [NamedMember] = members) -> AssistantToolCallValidator {
        AssistantToolCallValidator(now: now, timeZone: berlin, members: members)
    }

    static func validate(_ tool: String, _ arguments: String, members: [NamedMember] = members) throws -> AssistantToolCallOutcome {
        try validator(members: members).validate(tool: tool, arguments: arguments)
    }

    static func refusal(_ tool: String, _ arguments: String) -> AssistantToolCallRefusal? {
        do {
            _ = try validator().validate(tool: tool, arguments: arguments)
            return nil
        } catch {
            return error
        }
    }

    /// Arguments written from a JSON tree, for values too long to write out.
    static func json(_ fields: [String: JSONValue]) -> String {
        String(decoding: try! JSONEncoder().encode(JSONValue.object(fields)), as: UTF8.self)
    }

    // MARK: Schemas

    @Test func theCatalogueHasTheSixToolsProposingOnesFirst() {
        #expect(AssistantToolCatalogue.definitions.map(\.name) == [
            "set_reminder", "create_calendar_event", "add_chore", "send_message", "search_messages", "get_profile",
        ])
        #expect(AssistantToolCatalogue.proposable.map(\.name) == ["set_reminder", "create_calendar_event", "add_chore", "send_message"])
        #expect(AssistantToolCatalogue.readOnly.map(\.name) == ["search_messages", "get_profile"])
        #expect(AssistantToolCatalogue.definition(named: "add_chore")?.name == "add_chore")
        #expect(AssistantToolCatalogue.definition(named: "delete_everything") == nil)
    }

    @Test(arguments: AssistantToolCatalogue.definitions.map(\.name))
    func everySchemaIsStrict(name: String) throws {
        let definition = try #require(AssistantToolCatalogue.definition(named: name))
        #expect(!definition.description.isEmpty)
        #expect(!definition.description.contains("\n"))
        let schema = definition.parameters
        #expect(schema["type"] == .string("object"))
        #expect(schema["additionalProperties"] == .bool(false))
        guard case .object(let properties)? = schema["properties"], case .array(let required)? = schema["required"] else {
            Issue.record("\(name) has no properties or required list")
            return
        }
        let requiredNames = required.compactMap { value -> String? in
            if case .string(let text) = value { return text }
            return nil
        }
        #expect(requiredNames.count == required.count)
        #expect(requiredNames.count == Set(requiredNames).count)
        #expect(Set(requiredNames) == Set(properties.keys))
        for (property, propertySchema) in properties {
            let type = try #require(propertySchema["type"], "\(name).\(property) has no type")
            let allowed: Set<JSONValue> = [
                .string("string"), .string("boolean"), .string("integer"), .array([.string("string"), .string("null")]),
            ]
            #expect(allowed.contains(type), "\(name).\(property) has the type \(type)")
            guard case .string(let text)? = propertySchema["description"] else {
                Issue.record("\(name).\(property) has no description")
                continue
            }
            #expect(!text.isEmpty)
        }
    }

    @Test func theArgumentsAreTheOnesTheToolsTake() {
        func names(_ tool: String) -> Set<String> {
            guard case .object(let properties)? = AssistantToolCatalogue.definition(named: tool)?.parameters["properties"] else { return [] }
            return Set(properties.keys)
        }
        #expect(names("set_reminder") == ["title", "at", "member"])
        #expect(names("create_calendar_event") == ["title", "start", "end", "all_day"])
        #expect(names("add_chore") == ["chore", "assignee", "day", "time", "minutes"])
        #expect(names("send_message") == ["recipient", "text"])
        #expect(names("search_messages") == ["query"])
        #expect(names("get_profile") == ["member"])
        let member = AssistantToolCatalogue.definition(named: "set_reminder")?.parameters["properties"]?["member"]?["type"]
        #expect(member == .array([.string("string"), .string("null")]))
        let minutes = AssistantToolCatalogue.definition(named: "add_chore")?.parameters["properties"]?["minutes"]?["type"]
        #expect(minutes == .string("integer"))
    }

    // MARK: Proposals

    @Test func aReminderIsMeantInTheCallersZone() throws {
        let outcome = try Self.validate("set_reminder", #"{"title": " Pack swim bags ", "at": "2026-03-28T07:30", "member": null}"#)
        #expect(outcome == .proposal(.setReminder(.init(title: "Pack swim bags", at: Self.instant("2026-03-28T06:30:00Z"), member: nil))))
    }

    @Test func aReminderAboutAMemberMatchesTheNameWithoutCaseOrDiacritics() throws {
        let outcome = try Self.validate("set_reminder", #"{"title": "Practise piano", "at": "2026-03-28T16:00", "member": "zoe"}"#)
        #expect(outcome == .proposal(.setReminder(.init(title: "Practise piano", at: Self.instant("2026-03-28T15:00:00Z"), member: Self.zoe))))
    }

    @Test func aReminderForTheCurrentMinuteIsNotInThePast() throws {
        let validator = AssistantToolCallValidator(now: Self.instant("2026-03-27T09:00:45Z"), timeZone: Self.berlin, members: Self.members)
        let outcome = try validator.validate(tool: "set_reminder", arguments: #"{"title": "Now", "at": "2026-03-27T10:00", "member": null}"#)
        #expect(outcome == .proposal(.setReminder(.init(title: "Now", at: Self.instant("2026-03-27T09:00:00Z"), member: nil))))
    }

    @Test func aTimedCalendarEntryAcrossTheChangeToSummerTime() throws {
        // Sunday the 29th is in summer time (UTC+2).
        let outcome = try Self.validate(
            "create_calendar_event", #"{"title": "Swimming lessons", "start": "2026-03-29T10:00", "end": "2026-03-29T11:30", "all_day": false}"#)
        #expect(outcome == .proposal(.createCalendarEvent(.init(
            title: "Swimming lessons", start: Self.instant("2026-03-29T08:00:00Z"), end: Self.instant("2026-03-29T09:30:00Z"), allDay: false))))
    }

    @Test func anAllDayEntryRunsFromTheFirstDaysMidnightToTheMidnightAfterItsLastDay() throws {
        let outcome = try Self.validate(
            "create_calendar_event", #"{"title": "Grandma visits", "start": "2026-03-28", "end": "2026-03-29", "all_day": true}"#)
        #expect(outcome == .proposal(.createCalendarEvent(.init(
            title: "Grandma visits", start: Self.instant("2026-03-27T23:00:00Z"), end: Self.instant("2026-03-29T22:00:00Z"), allDay: true))))
        let oneDay = try Self.validate(
            "create_calendar_event", #"{"title": "Sports day", "start": "2026-03-28", "end": "2026-03-28", "all_day": true}"#)
        #expect(oneDay == .proposal(.createCalendarEvent(.init(
            title: "Sports day", start: Self.instant("2026-03-27T23:00:00Z"), end: Self.instant("2026-03-28T23:00:00Z"), allDay: true))))
    }

    @Test func aChoreKeepsItsLocalDayAndTime() throws {
        let outcome = try Self.validate(
            "add_chore", #"{"chore": "Water the plants", "assignee": "Alex", "day": "2026-03-28", "time": "18:30", "minutes": 20}"#)
        let day = try #require(CalendarDay(year: 2026, month: 3, day: 28))
        #expect(outcome == .proposal(.addChore(.init(
            chore: "Water the plants", assignee: Self.alex, day: day, secondsOfDay: 18 * 3600 + 30 * 60, minutes: 20))))
        let mine = try Self.validate(
            "add_chore", #"{"chore": "Empty the bins", "assignee": null, "day": "2026-03-28", "time": "07:05", "minutes": 5.0}"#)
        #expect(mine == .proposal(.addChore(.init(chore: "Empty the bins", assignee: nil, day: day, secondsOfDay: 7 * 3600 + 5 * 60, minutes: 5))))
    }

    @Test func aFullNameWinsOverASharedFirstName() throws {
        let outcome = try Self.validate("send_message", #"{"recipient": "sam lee", "text": "Dinner is at 6"}"#)
        #expect(outcome == .proposal(.sendMessage(.init(recipient: Self.samLee, text: "Dinner is at 6"))))
        let sam = NamedMember(memberId: UUID(), name: "Sam")
        let exact = try Self.validate("send_message", #"{"recipient": "Sam", "text": "Hi"}"#, members: [Self.samLee, sam])
        #expect(exact == .proposal(.sendMessage(.init(recipient: sam, text: "Hi"))))
    }

    @Test func theBoundariesAreAccepted() throws {
        let title = String(repeating: "é", count: AssistantToolCatalogue.maxTitleLength)
        let reminder = try Self.validate("set_reminder", Self.json(["title": .string(title), "at": .string("2026-03-28T07:30"), "member": .null]))
        #expect(reminder == .proposal(.setReminder(.init(title: title, at: Self.instant("2026-03-28T06:30:00Z"), member: nil))))
        let text = String(repeating: "a", count: AssistantToolCatalogue.maxMessageLength)
        let message = try Self.validate("send_message", Self.json(["recipient": .string("Alex"), "text": .string(text)]))
        #expect(message == .proposal(.sendMessage(.init(recipient: Self.alex, text: text))))
        for minutes in [1, 480] {
            let chore = try Self.validate(
                "add_chore", #"{"chore": "Tidy up", "assignee": null, "day": "2026-03-28", "time": "09:00", "minutes": \#(minutes)}"#)
            guard case .proposal(.addChore(let added)) = chore else {
                Issue.record("no chore for \(minutes) minutes")
                continue
            }
            #expect(added.minutes == minutes)
        }
    }

    // MARK: Lookups

    @Test func readOnlyToolsAreLookups() throws {
        #expect(try Self.validate("search_messages", #"{"query": " swim kit "}"#) == .lookup(.searchMessages(query: "swim kit")))
        #expect(try Self.validate("get_profile", #"{"member": null}"#) == .lookup(.profile(member: nil)))
        #expect(try Self.validate("get_profile", #"{"member": "ALEX morgan"}"#) == .lookup(.profile(member: Self.alex)))
        #expect(AssistantLookup.searchMessages(query: "x").tool == "search_messages")
        #expect(AssistantLookup.profile(member: nil).tool == "get_profile")
    }

    // MARK: Ambiguity

    @Test func aFirstNameTwoMembersShareIsAmbiguousWithBoth() throws {
        let message = try Self.validate("send_message", #"{"recipient": "Sam", "text": "Dinner is at 6"}"#)
        #expect(message == .ambiguous(argument: "recipient", written: "Sam", choices: [Self.samLee, Self.samPark]))
        let reminder = try Self.validate("set_reminder", #"{"title": "Piano", "at": "2026-03-28T16:00", "member": "sam"}"#)
        #expect(reminder == .ambiguous(argument: "member", written: "sam", choices: [Self.samLee, Self.samPark]))
        let chore = try Self.validate(
            "add_chore", #"{"chore": "Feed the cat", "assignee": "Sám", "day": "2026-03-28", "time": "08:00", "minutes": 5}"#)
        #expect(chore == .ambiguous(argument: "assignee", written: "Sám", choices: [Self.samLee, Self.samPark]))
        let profile = try Self.validate("get_profile", #"{"member": "Sam"}"#)
        #expect(profile == .ambiguous(argument: "member", written: "Sam", choices: [Self.samLee, Self.samPark]))
    }

    @Test func anAmbiguousNameDoesNotHideAnotherFault() {
        let refusal = Self.refusal("send_message", #"{"recipient": "Sam", "text": "  "}"#)
        #expect(refusal?.code == .emptyValue)
        #expect(refusal?.argument == "text")
    }

    // MARK: Refusals

    struct RefusalCase: Sendable, CustomStringConvertible {
        var tool: String
        var arguments: String
        var code: AssistantToolCallRefusal.Code
        var argument: String?
        var description: String { "\(tool) \(arguments.prefix(80)) → \(code.rawValue) \(argument ?? "-")" }

        init(_ tool: String, _ arguments: String, _ code: AssistantToolCallRefusal.Code, _ argument: String?) {
            self.tool = tool
            self.arguments = arguments
            self.code = code
            self.argument = argument
        }
    }

    static let longTitle = String(repeating: "x", count: AssistantToolCatalogue.maxTitleLength + 1)
    static let longText = String(repeating: "x", count: AssistantToolCatalogue.maxMessageLength + 1)

    static let refusals: [RefusalCase] = [
        RefusalCase("delete_everything", "{}", .unknownTool, nil),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "#, .argumentsNotJSON, nil),
        RefusalCase("set_reminder", "title=Swim", .argumentsNotJSON, nil),
        RefusalCase("search_messages", "", .argumentsNotJSON, nil),
        RefusalCase("search_messages", #"["swim"]"#, .argumentsNotJSON, nil),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-28T07:30"}"#, .missingArgument, "member"),
        RefusalCase("create_calendar_event", #"{"title": "Swim", "start": "2026-03-28T07:30", "end": "2026-03-28T08:30"}"#, .missingArgument, "all_day"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-28T07:30", "member": null, "urgent": true}"#, .unexpectedArgument, "urgent"),
        RefusalCase("get_profile", #"{"member": null, "member_id": "x"}"#, .unexpectedArgument, "member_id"),
        RefusalCase("set_reminder", #"{"title": 5, "at": "2026-03-28T07:30", "member": null}"#, .wrongType, "title"),
        RefusalCase("set_reminder", #"{"title": null, "at": "2026-03-28T07:30", "member": null}"#, .wrongType, "title"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-28T07:30", "member": ["Alex"]}"#, .wrongType, "member"),
        RefusalCase("create_calendar_event", #"{"title": "Swim", "start": "2026-03-28T07:30", "end": "2026-03-28T08:30", "all_day": "no"}"#, .wrongType, "all_day"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "2026-03-28", "time": "09:00", "minutes": "20"}"#, .wrongType, "minutes"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "2026-03-28", "time": "09:00", "minutes": 12.5}"#, .wrongType, "minutes"),
        RefusalCase("set_reminder", #"{"title": "  ", "at": "2026-03-28T07:30", "member": null}"#, .emptyValue, "title"),
        RefusalCase("create_calendar_event", #"{"title": "", "start": "2026-03-28T07:30", "end": "2026-03-28T08:30", "all_day": false}"#, .emptyValue, "title"),
        RefusalCase("add_chore", #"{"chore": "", "assignee": null, "day": "2026-03-28", "time": "09:00", "minutes": 20}"#, .emptyValue, "chore"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-28T07:30", "member": ""}"#, .emptyValue, "member"),
        RefusalCase("search_messages", #"{"query": " "}"#, .emptyValue, "query"),
        RefusalCase("set_reminder", json(["title": .string(longTitle), "at": .string("2026-03-28T07:30"), "member": .null]), .tooLong, "title"),
        RefusalCase(
            "create_calendar_event",
            json(["title": .string(longTitle), "start": .string("2026-03-28T07:30"), "end": .string("2026-03-28T08:30"), "all_day": .bool(false)]),
            .tooLong, "title"),
        RefusalCase(
            "add_chore",
            json(["chore": .string(longTitle), "assignee": .null, "day": .string("2026-03-28"), "time": .string("09:00"), "minutes": .number(20)]),
            .tooLong, "chore"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "tomorrow at 7am", "member": null}"#, .invalidDate, "at"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-02-30T07:30", "member": null}"#, .invalidDate, "at"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-28T07:30Z", "member": null}"#, .invalidDate, "at"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-28T25:00", "member": null}"#, .invalidDate, "at"),
        RefusalCase("create_calendar_event", #"{"title": "Swim", "start": "2026-03-28", "end": "2026-03-28T08:30", "all_day": false}"#, .invalidDate, "start"),
        RefusalCase("create_calendar_event", #"{"title": "Swim", "start": "2026-03-28T07:30", "end": "half past eight", "all_day": false}"#, .invalidDate, "end"),
        RefusalCase("create_calendar_event", #"{"title": "Swim", "start": "2026-03-28T07:30", "end": "2026-03-28", "all_day": true}"#, .invalidDate, "start"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "28/03/2026", "time": "09:00", "minutes": 20}"#, .invalidDate, "day"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "2026-03-28", "time": "6pm", "minutes": 20}"#, .invalidTime, "time"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "2026-03-28", "time": "24:00", "minutes": 20}"#, .invalidTime, "time"),
        RefusalCase("create_calendar_event", #"{"title": "Swim", "start": "2026-03-28T07:30", "end": "2026-03-28T07:30", "all_day": false}"#, .endNotAfterStart, "end"),
        RefusalCase("create_calendar_event", #"{"title": "Swim", "start": "2026-03-28T07:30", "end": "2026-03-28T06:30", "all_day": false}"#, .endNotAfterStart, "end"),
        RefusalCase("create_calendar_event", #"{"title": "Trip", "start": "2026-03-28", "end": "2026-03-27", "all_day": true}"#, .endNotAfterStart, "end"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-27T09:59", "member": null}"#, .inThePast, "at"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2025-03-28T07:30", "member": null}"#, .inThePast, "at"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "2026-03-28", "time": "09:00", "minutes": 0}"#, .outOfRange, "minutes"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "2026-03-28", "time": "09:00", "minutes": 481}"#, .outOfRange, "minutes"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": null, "day": "3026-03-28", "time": "09:00", "minutes": 20}"#, .outOfRange, "day"),
        RefusalCase("create_calendar_event", #"{"title": "Trip", "start": "2026-03-28", "end": "2026-05-28", "all_day": true}"#, .outOfRange, "end"),
        RefusalCase("set_reminder", #"{"title": "Swim", "at": "2026-03-28T07:30", "member": "Jordan"}"#, .unknownMember, "member"),
        RefusalCase("add_chore", #"{"chore": "Dust", "assignee": "Jordan", "day": "2026-03-28", "time": "09:00", "minutes": 20}"#, .unknownMember, "assignee"),
        RefusalCase("send_message", #"{"recipient": "Jordan", "text": "Hi"}"#, .unknownMember, "recipient"),
        RefusalCase("send_message", #"{"recipient": "Sam Lees", "text": "Hi"}"#, .unknownMember, "recipient"),
        RefusalCase("get_profile", #"{"member": "me"}"#, .unknownMember, "member"),
        RefusalCase("send_message", #"{"recipient": "Alex", "text": " "}"#, .emptyValue, "text"),
        RefusalCase("send_message", #"{"recipient": "", "text": "Hi"}"#, .emptyValue, "recipient"),
        RefusalCase("send_message", json(["recipient": .string("Alex"), "text": .string(longText)]), .tooLong, "text"),
    ]

    @Test(arguments: refusals)
    func eachRefusalHasItsCodeAndNamesItsArgument(_ refusalCase: RefusalCase) throws {
        let refusal = try #require(Self.refusal(refusalCase.tool, refusalCase.arguments), "accepted: \(refusalCase)")
        #expect(refusal.code == refusalCase.code, "\(refusal.reason)")
        #expect(refusal.argument == refusalCase.argument, "\(refusal.reason)")
        if let argument = refusalCase.argument {
            #expect(refusal.reason.contains(argument), "the reason does not name \(argument): \(refusal.reason)")
        }
    }

    @Test func aRefusalGoesBackToTheModelAsAToolResult() throws {
        let refusal = try #require(Self.refusal("set_reminder", #"{"title": "Swim", "at": "2026-03-28T07:30", "member": "Jordan"}"#))
        #expect(refusal.toolResult == .object([
            "error": .string("unknown_member"), "argument": .string("member"), "reason": .string(refusal.reason),
        ]))
        #expect(refusal.reason.contains("Alex Morgan"))
        let whole = try #require(Self.refusal("delete_everything", "{}"))
        #expect(whole.toolResult["argument"] == .null)
        #expect(whole.reason.contains("set_reminder"))
    }
}
