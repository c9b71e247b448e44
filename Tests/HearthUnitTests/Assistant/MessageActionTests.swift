import Foundation
import HearthDomain
import Testing

/// The offline halves of the contextual actions on a message: the thread digest and the
/// reminder a message suggests.
@Suite struct MessageActionTests {
    static let london = TimeZone(identifier: "Europe/London")!

    /// Monday 2026-11-23, 10:00 in London.
    static func parser() -> AssistantIntentParser {
        AssistantIntentParser(now: ISO8601DateFormatter().date(from: "2026-11-23T10:00:00Z")!, timeZone: london, members: [])
    }

    @Test func aMessageNamingATimeSuggestsAReminderThen() throws {
        let (reminder, timed) = Self.parser().suggestedReminder(from: "Dinner at grandma's on Sunday at 6pm. Bring the pie!")
        #expect(timed)
        #expect(reminder.title == "Dinner at grandma's")
        #expect(reminder.at == ISO8601DateFormatter().date(from: "2026-11-29T18:00:00Z"))
        #expect(reminder.member == nil)
    }

    @Test func aLaterSentenceMaySayWhen() throws {
        let (reminder, timed) = Self.parser().suggestedReminder(from: "School photos are coming up. Please send the form in tomorrow at 8am")
        #expect(timed)
        #expect(reminder.title == "Send the form in")
        #expect(reminder.at == ISO8601DateFormatter().date(from: "2026-11-24T08:00:00Z"))
    }

    @Test func aMessageWithoutATimeGetsTheNextMorningAndSaysSo() throws {
        let (reminder, timed) = Self.parser().suggestedReminder(from: "don't forget the library books")
        #expect(!timed)
        #expect(reminder.title == "The library books")
        #expect(reminder.at == ISO8601DateFormatter().date(from: "2026-11-24T09:00:00Z"), "10:00 is past 9:00, so tomorrow")
        let long = String(repeating: "pack the big blue bag ", count: 20)
        let cut = Self.parser().suggestedReminder(from: long).reminder.title
        #expect(cut.count <= 120 && cut.hasSuffix("…"), "\(cut)")
    }

    @Test func theDigestNamesWhoTookPartAndSkipsShortRepliesAndRepeats() {
        let thread = [
            ThreadLine(author: "Ana", text: "Swimming moves to Thursday at 5pm. The pool is closed on Tuesdays now."),
            ThreadLine(author: "Ben", text: "ok!"),
            ThreadLine(author: "Ben", text: "I can take Sam, and I'll pack the goggles"),
            ThreadLine(author: "Cy", text: "Swimming moves to Thursday at 5pm."),
        ]
        let summary = ThreadDigest.summary(of: thread)
        #expect(summary == "4 messages from Ana, Ben and Cy. Ana: Swimming moves to Thursday at 5pm. Ben: I can take Sam, and I'll pack the goggles.")
        #expect(ThreadDigest.summary(of: [ThreadLine(author: "Ana", text: "thanks")]) == "1 message from Ana. Nothing in them beyond short replies.")
        #expect(ThreadDigest.summary(of: []) == "There are no messages to summarise.")
    }

    @Test func aLongThreadKeepsItsLatestPoints() {
        let thread = (1...8).map { ThreadLine(author: $0.isMultiple(of: 2) ? "Ana" : "Ben", text: "Point number \($0) is new") }
        let summary = ThreadDigest.summary(of: thread)
        #expect(summary.hasPrefix("8 messages from Ben and Ana."))
        #expect(!summary.contains("number 3 ") && summary.contains("Point number 4") && summary.contains("Point number 8"), "\(summary)")
    }
}
