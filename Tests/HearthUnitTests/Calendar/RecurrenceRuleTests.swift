import Foundation
import HearthDomain
import Testing

@Suite struct RecurrenceRuleTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func at(_ text: String, _ zone: TimeZone = utc) -> Date {
        CalendarTimeInput.parseDateTime(text, in: zone)!
    }

    static func starts(_ rule: String, from start: String, zone: TimeZone = utc, window: (String, String), allDay: Bool = false) throws -> [String] {
        let parsed = try RecurrenceRule.parse(rule)
        let formatter = ISO8601DateFormatter()
        return parsed.occurrences(
            start: at(start, zone), duration: 3600, allDay: allDay, timeZone: zone, from: at(window.0), to: at(window.1)
        ).map { formatter.string(from: $0.start) }
    }

    @Test func dailyWithIntervalAndCount() throws {
        #expect(try Self.starts("FREQ=DAILY;INTERVAL=2;COUNT=3", from: "2026-03-02T09:00Z", window: ("2026-01-01T00:00Z", "2027-01-01T00:00Z"))
            == ["2026-03-02T09:00:00Z", "2026-03-04T09:00:00Z", "2026-03-06T09:00:00Z"])
    }

    @Test func weeklyByDayKeepsLocalTimeAcrossDaylightSaving() throws {
        // Berlin moves to summer time on 2026-03-29: 18:00 local is 17:00Z before, 16:00Z after.
        let starts = try Self.starts(
            "FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20260402T235959Z", from: "2026-03-23T18:00", zone: Self.berlin,
            window: ("2026-03-01T00:00Z", "2026-05-01T00:00Z"))
        #expect(starts == ["2026-03-23T17:00:00Z", "2026-03-26T17:00:00Z", "2026-03-30T16:00:00Z", "2026-04-02T16:00:00Z"])
    }

    @Test func monthlyByDayOrdinalsAndPlainMonthDays() throws {
        #expect(try Self.starts("FREQ=MONTHLY;BYDAY=-1FR;COUNT=3", from: "2026-01-30T10:00Z", window: ("2026-01-01T00:00Z", "2027-01-01T00:00Z"))
            == ["2026-01-30T10:00:00Z", "2026-02-27T10:00:00Z", "2026-03-27T10:00:00Z"])
        // The 31st skips months without one.
        #expect(try Self.starts("FREQ=MONTHLY;COUNT=3", from: "2026-01-31T10:00Z", window: ("2026-01-01T00:00Z", "2027-01-01T00:00Z"))
            == ["2026-01-31T10:00:00Z", "2026-03-31T10:00:00Z", "2026-05-31T10:00:00Z"])
    }

    @Test func windowCutsWithoutLosingCount() throws {
        #expect(try Self.starts("FREQ=DAILY;COUNT=5", from: "2026-03-01T09:00Z", window: ("2026-03-04T00:00Z", "2026-03-10T00:00Z"))
            == ["2026-03-04T09:00:00Z", "2026-03-05T09:00:00Z"])
    }

    /// Skipping what lies before the window must not change what is in it: each case is listed
    /// once for a late window, and once from its start with the late part cut out afterwards.
    @Test func aLateWindowListsWhatAListingFromTheStartHasInIt() throws {
        let cases: [(rule: String, start: String, zone: TimeZone, duration: TimeInterval, allDay: Bool)] = [
            ("FREQ=DAILY;INTERVAL=3", "2019-03-30T01:30", Self.berlin, 3600, false),
            ("FREQ=DAILY;COUNT=1000", "2023-06-15T01:30", Self.berlin, 3600, false),
            ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,SU", "2019-01-06T18:00", Self.berlin, 2 * 86_400, false),
            ("FREQ=WEEKLY;BYDAY=TU;UNTIL=20260310T120000Z", "2019-01-01T09:00Z", Self.utc, 3600, false),
            ("FREQ=MONTHLY;BYDAY=-1FR,1MO", "2019-01-04T10:00Z", Self.utc, 3 * 86_400, false),
            ("FREQ=MONTHLY;INTERVAL=2", "2019-01-31T10:00Z", Self.utc, 0, false),
            ("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR,SA,SU", "2019-02-10", Self.berlin, 86_400, true),
            ("FREQ=WEEKLY;BYDAY=SA;UNTIL=20260314", "2019-02-09", Self.berlin, 2 * 86_400, true),
        ]
        let (from, to) = (Self.at("2026-03-01T00:00Z"), Self.at("2026-04-15T00:00Z"))
        for item in cases {
            let rule = try RecurrenceRule.parse(item.rule)
            let start = item.allDay
                ? LocalTime.instant(day: CalendarDay(isoDate: item.start)!, secondsOfDay: 0, in: item.zone)
                : Self.at(item.start, item.zone)
            let late = rule.occurrences(start: start, duration: item.duration, allDay: item.allDay, timeZone: item.zone, from: from, to: to)
            let all = rule.occurrences(
                start: start, duration: item.duration, allDay: item.allDay, timeZone: item.zone, from: start, to: to, limit: 100_000)
            let expected = all.filter { $0.end > from || (item.duration == 0 && $0.start >= from) }
            #expect(!expected.isEmpty, "\(item.rule)")
            #expect(late == expected, "\(item.rule): \(late.count) against \(expected.count)")
        }
    }

    @Test func anInstantPastTheYear9999HasALocalDay() {
        let far = Date(timeIntervalSince1970: 253_402_300_800 + 3600)  // 10000-01-01T01:00Z
        let (day, seconds) = LocalTime.components(of: far, in: Self.utc)
        #expect(day.year == 10000 && day.month == 1 && day.day == 1 && seconds == 3600)
    }

    @Test func unsupportedOrMalformedRulesAreRefused() {
        for bad in ["FREQ=YEARLY", "FREQ=DAILY;BYMONTHDAY=3", "INTERVAL=2", "FREQ=DAILY;COUNT=0", "FREQ=DAILY;COUNT=2;UNTIL=20260101",
                    "FREQ=WEEKLY;BYDAY=2MO", "FREQ=WEEKLY;BYDAY=XX", "FREQ=DAILY;UNTIL=2026", "", "FREQ"] {
            #expect(throws: RecurrenceRuleError.self, "\(bad)") { try RecurrenceRule.parse(bad) }
        }
    }

    @Test func canonicalTextPutsUntilInUTCOrAsADate() throws {
        let rule = try RecurrenceRule.parse("rrule:freq=weekly;byday=mo,we;until=20260331")
        #expect(rule.text(allDay: true, timeZone: Self.berlin) == "FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260331")
        // A date UNTIL includes that whole local day: 23:59:59 Berlin (CEST after 29 March) is 21:59:59Z.
        #expect(rule.text(allDay: false, timeZone: Self.berlin) == "FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260331T215959Z")
    }
}

@Suite struct CalendarInputTests {
    @Test func badTimesNameTheirField() {
        func field(_ start: String, _ end: String?, allDay: Bool = false, zone: String? = nil, rrule: String? = nil) -> String? {
            do {
                _ = try CalendarTimeInput(start: start, end: end, allDay: allDay, timeZone: zone, rrule: rrule)
                return nil
            } catch {
                return error.field
            }
        }
        #expect(field("2026-03-03T10:00Z", "2026-03-03T09:00Z") == "end")
        #expect(field("2026-03-03T10:00Z", "2026-03-03T10:00Z") == "end")
        #expect(field("yesterday", "2026-03-03T09:00Z") == "start")
        #expect(field("2026-03-03T10:00", "2026-03-03T11:00", zone: "Mars/Olympus") == "time_zone")
        #expect(field("2026-03-03T10:00", "2026-03-03T11:00", zone: "EST") == "time_zone")
        #expect(field("2026-03-03T10:00Z", "2026-03-03T11:00Z", rrule: "FREQ=HOURLY") == "rrule")
        #expect(field("2026-03-03", "2026-03-03", allDay: true) == "end")
        #expect(field("2026-03-03T10:00Z", "2026-03-03T11:00Z", zone: "Europe/Berlin") == nil)
        // Outside 1900–2999: the year 1 made every listing expand two millennia; an all-day
        // entry on 9999-12-31 ended in the year 10000, which the calendar code cannot hold.
        #expect(field("0001-01-01T10:00Z", "0001-01-01T11:00Z") == "start")
        #expect(field("1899-12-31T10:00Z", "1899-12-31T11:00Z") == "start")
        #expect(field("9999-12-31", nil, allDay: true) == "start")
        #expect(field("3000-01-01", nil, allDay: true) == "start")
        #expect(field("1900-01-01", nil, allDay: true) == nil)
        #expect(field("2999-12-31", nil, allDay: true) == nil)
    }

    @Test func localTimesAreReadInTheZoneAndOffsetsAreHonoured() throws {
        let input = try CalendarTimeInput(start: "2026-07-01T18:00", end: "2026-07-01T19:30:00+02:00", allDay: false, timeZone: "Europe/Berlin", rrule: nil)
        #expect(input.start == Date(timeIntervalSince1970: 1_782_921_600))  // 2026-07-01T16:00Z
        #expect(input.end.timeIntervalSince(input.start) == 5400)
        let allDay = try CalendarTimeInput(start: "2026-07-01", end: nil, allDay: true, timeZone: "Europe/Berlin", rrule: nil)
        #expect(allDay.end.timeIntervalSince(allDay.start) == 86_400)
    }
}

@Suite struct ConflictDetectorTests {
    static let ada = UUID(), bo = UUID()

    static func entry(_ title: String, _ start: String, _ end: String, members: [UUID], rrule: String? = nil, allDay: Bool = false) throws -> CalendarEntry {
        let input = try CalendarTimeInput(start: start, end: end, allDay: allDay, timeZone: "UTC", rrule: rrule)
        return CalendarEntry(
            id: UUID(), source: .event, title: title, start: input.start, end: input.end, allDay: allDay, timeZone: input.timeZone,
            kind: "appointment", memberIds: members, location: nil, rule: input.rule, sequence: 0, updatedAt: input.start)
    }

    @Test func overlappingEntriesOfTheSameMemberConflict() throws {
        let dentist = try Self.entry("Dentist", "2026-03-03T10:00Z", "2026-03-03T11:00Z", members: [Self.ada])
        let call = try Self.entry("Call", "2026-03-03T10:30Z", "2026-03-03T11:30Z", members: [Self.ada, Self.bo])
        let touching = try Self.entry("Later", "2026-03-03T11:30Z", "2026-03-03T12:30Z", members: [Self.ada])
        let someoneElse = try Self.entry("Bo only", "2026-03-03T10:00Z", "2026-03-03T11:00Z", members: [Self.bo])
        let found = ConflictDetector.conflicts(of: call, among: [dentist, touching, someoneElse])
        #expect(Set(found.map(\.otherTitle)) == ["Dentist", "Bo only"], "Later starts as the call ends: back-to-back is no conflict")
        #expect(found.first { $0.otherTitle == "Dentist" }?.memberIds == [Self.ada])
        #expect(found.first { $0.otherTitle == "Bo only" }?.memberIds == [Self.bo])
    }

    @Test func recurringEntriesConflictWithALaterOccurrence() throws {
        let training = try Self.entry("Training", "2026-03-02T17:00Z", "2026-03-02T18:00Z", members: [Self.bo], rrule: "FREQ=WEEKLY;BYDAY=MO")
        let call = try Self.entry("Call", "2026-03-16T17:30Z", "2026-03-16T18:30Z", members: [Self.bo])
        let found = ConflictDetector.conflicts(of: call, among: [training])
        #expect(found.count == 1)
        #expect(found.first?.otherOccurrence.start == CalendarTimeInput.parseDateTime("2026-03-16T17:00Z", in: .gmt))
    }
}

@Suite struct GoogleEventIdTests {
    @Test func idsAreLowerCaseBase32HexOfTheUUIDBytes() {
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        #expect(GoogleEventId.derive(from: zero) == String(repeating: "0", count: 26))
        let ones = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))
        #expect(GoogleEventId.derive(from: ones) == String(repeating: "v", count: 25) + "s")
        for _ in 0..<100 {
            let id = UUID()
            let derived = GoogleEventId.derive(from: id)
            #expect(derived.count == 26 && GoogleEventId.isValid(derived))
            #expect(derived == GoogleEventId.derive(from: UUID(uuidString: id.uuidString.lowercased())!))
        }
        #expect(!GoogleEventId.isValid("ABCDE") && !GoogleEventId.isValid("wxyz0") && !GoogleEventId.isValid("abc"))
    }
}

@Suite struct ICalendarWriterTests {
    @Test func textIsEscapedAndLinesFoldWithoutSplittingCharacters() throws {
        #expect(ICalendarFormat.escapeText("a,b;c\\d\ne\r\nf") == "a\\,b\\;c\\\\d\\ne\\nf")
        let long = "SUMMARY:" + String(repeating: "é", count: 60) + String(repeating: "x", count: 50)
        let folded = ICalendarFormat.fold(long)
        #expect(folded.hasSuffix("\r\n"))
        // "\r\n" is one Character: dropLast() removes the whole line break.
        let physical = String(folded.dropLast()).components(separatedBy: "\r\n")
        #expect(physical.count > 1)
        for (index, line) in physical.enumerated() {
            #expect(line.utf8.count <= 75)
            if index > 0 { #expect(line.hasPrefix(" ")) }
        }
        // Unfolding gives the line back.
        #expect(physical.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined() == long)
    }

    @Test func aCalendarHasTheRequiredPropertiesAndZonesForRecurringEntries() throws {
        let input = try CalendarTimeInput(start: "2026-03-02T18:00", end: "2026-03-02T19:00", allDay: false, timeZone: "Europe/Berlin", rrule: "FREQ=WEEKLY;COUNT=4")
        let entry = CalendarEntry(
            id: UUID(), source: .event, title: "Training, then; pizza", start: input.start, end: input.end, allDay: false,
            timeZone: input.timeZone, kind: "training", memberIds: [], location: nil, rule: input.rule, sequence: 2, updatedAt: input.start)
        let text = ICalendarWriter(calendarName: "Home").write([entry])
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:"))
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        #expect(text.contains("DTSTART;TZID=Europe/Berlin:20260302T180000\r\n"))
        #expect(text.contains("RRULE:FREQ=WEEKLY;COUNT=4\r\n"))
        #expect(text.contains("SEQUENCE:2\r\n"))
        #expect(text.contains("SUMMARY:Training\\, then\\; pizza\r\n"))
        #expect(text.contains("TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n"))
    }
}
