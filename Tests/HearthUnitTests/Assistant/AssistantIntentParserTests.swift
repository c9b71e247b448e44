import Foundation
import HearthDomain
import Testing

@Suite struct AssistantIntentParserTests {
    static let sam = NamedMember(memberId: UUID(), name: "Sam")
    static let alex = NamedMember(memberId: UUID(), name: "Alex Morgan")
    static let utc = TimeZone(identifier: "UTC")!

    /// Monday 2026-11-23, 06:00 UTC unless a test says otherwise.
    static func parser(now: String = "2026-11-23T06:00:00Z", zone: TimeZone = utc) -> AssistantIntentParser {
        AssistantIntentParser(now: ISO8601DateFormatter().date(from: now)!, timeZone: zone, members: [sam, alex])
    }

    static func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func reminder(_ text: String, parser: AssistantIntentParser = parser()) -> AssistantIntent.SetReminder? {
        guard case .setReminder(let reminder)? = parser.intents(in: text).first else { return nil }
        return reminder
    }

    @Test func remindMeTomorrowAtSevenAM() throws {
        let reminder = try #require(Self.reminder("Remind me tomorrow at 7am to pack swim bags"))
        #expect(reminder.title == "Pack swim bags")
        #expect(reminder.at == Self.instant("2026-11-24T07:00:00Z"))
        #expect(reminder.member == nil)
    }

    @Test func theTimeIsMeantInTheUsersZone() throws {
        let newYork = TimeZone(identifier: "America/New_York")!
        let reminder = try #require(Self.reminder("remind me tomorrow at 7 a.m. to pack swim bags", parser: Self.parser(zone: newYork)))
        #expect(reminder.at == Self.instant("2026-11-24T12:00:00Z"))
        #expect(reminder.title == "Pack swim bags")
    }

    @Test func weekdayAndTimeAfterTheTask() throws {
        let reminder = try #require(Self.reminder("Please remind me to call grandma on Friday at 5:30pm."))
        #expect(reminder.title == "Call grandma")
        #expect(reminder.at == Self.instant("2026-11-27T17:30:00Z"))
        // Said on a Monday, "Monday" is a week on.
        let monday = try #require(Self.reminder("remind me on monday at 8 to book the dentist"))
        #expect(monday.at == Self.instant("2026-11-30T08:00:00Z"))
    }

    @Test func relativeTimes() throws {
        let reminder = try #require(Self.reminder("remind me in 20 minutes to take the cake out"))
        #expect(reminder.at == Self.instant("2026-11-23T06:20:00Z"))
        #expect(reminder.title == "Take the cake out")
        #expect(Self.reminder("remind me in an hour to move the car")?.at == Self.instant("2026-11-23T07:00:00Z"))
    }

    @Test func aTimeOfDayThatHasPassedMeansTomorrow() {
        #expect(Self.reminder("remind me at 7 to stretch")?.at == Self.instant("2026-11-23T07:00:00Z"))
        #expect(Self.reminder("remind me at 7 to stretch", parser: Self.parser(now: "2026-11-23T08:00:00Z"))?.at
            == Self.instant("2026-11-24T07:00:00Z"))
        #expect(Self.reminder("remind me tonight to lock the shed")?.at == Self.instant("2026-11-23T20:00:00Z"))
    }

    @Test func aReminderAboutSomeoneNamesTheMember() throws {
        let reminder = try #require(Self.reminder("Remind Sam tomorrow at 4pm to practise piano"))
        #expect(reminder.member == Self.sam)
        #expect(reminder.title == "Practise piano")
        #expect(reminder.at == Self.instant("2026-11-24T16:00:00Z"))
    }

    @Test func noTimeOrAnUnknownPersonProposesNothing() {
        #expect(Self.parser().intents(in: "Remind me to buy milk").isEmpty)
        #expect(Self.parser().intents(in: "remind Zed tomorrow at 9 to call").isEmpty)
        #expect(Self.parser().intents(in: "What is a good snack after swimming?").isEmpty)
        #expect(Self.parser().intents(in: "Add milk to the shopping list").isEmpty)
    }

    @Test func calendarEntries() throws {
        guard case .createCalendarEvent(let timed)? = Self.parser().intents(in: "Add swimming lessons to the calendar on Saturday at 10").first else {
            Issue.record("no calendar event")
            return
        }
        #expect(timed.title == "Swimming lessons")
        #expect(timed.start == Self.instant("2026-11-28T10:00:00Z"))
        #expect(timed.end == Self.instant("2026-11-28T11:00:00Z"))
        #expect(!timed.allDay)
        guard case .createCalendarEvent(let allDay)? = Self.parser().intents(in: "put the school play on our calendar on 2026-12-02").first else {
            Issue.record("no all-day event")
            return
        }
        #expect(allDay.title == "School play")
        #expect(allDay.allDay)
        #expect(allDay.start == Self.instant("2026-12-02T00:00:00Z"))
        #expect(allDay.end == Self.instant("2026-12-03T00:00:00Z"))
        #expect(Self.parser().intents(in: "put the school play on our calendar").isEmpty)
    }

    @Test func chores() throws {
        guard case .addChore(let chore)? = Self.parser().intents(in: "Add a chore: water the plants for Sam tomorrow").first else {
            Issue.record("no chore")
            return
        }
        #expect(chore.chore == "Water the plants")
        #expect(chore.assignee == Self.sam)
        #expect(chore.day == CalendarDay(isoDate: "2026-11-24"))
        #expect(chore.secondsOfDay == 18 * 3600)
        guard case .addChore(let other)? = Self.parser().intents(in: "add feed the cat to Alex's chores at 7pm").first else {
            Issue.record("no chore for Alex")
            return
        }
        #expect(other.chore == "Feed the cat")
        #expect(other.assignee == Self.alex)
        #expect(other.day == CalendarDay(isoDate: "2026-11-23"))
        #expect(other.secondsOfDay == 19 * 3600)
    }

    @Test func messages() throws {
        guard case .sendMessage(let message)? = Self.parser().intents(in: "Tell Alex that dinner is at 6").first else {
            Issue.record("no message")
            return
        }
        #expect(message.recipient == Self.alex)
        #expect(message.text == "Dinner is at 6")
        #expect(Self.parser().intents(in: "tell Zed that dinner is at 6").isEmpty)
    }

    @Test func oneIntentPerSentence() {
        let intents = Self.parser().intents(in: "Remind me tomorrow at 7am to pack swim bags. Also tell Sam the bus is late!")
        #expect(intents.map(\.tool) == ["set_reminder", "send_message"])
    }
}
