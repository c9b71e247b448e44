import Foundation
import HearthDomain
import Testing

@Suite struct QuietHoursTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func instant(_ text: String) -> Date { LocalDateTime.instant(text, in: .gmt)! }

    @Test func clockTimesParseStrictly() {
        #expect(LocalClockTime("22:00") == LocalClockTime(hour: 22, minute: 0))
        #expect(LocalClockTime("07:30")?.minutesIntoDay == 450)
        for bad in ["7:30", "24:00", "12:60", "12-30", "", "ab:cd", "12:3", "12:300"] {
            #expect(LocalClockTime(bad) == nil, "\(bad)")
        }
    }

    @Test func aWindowOverMidnightEndsTheNextMorningInTheUsersZone() throws {
        let quiet = try #require(QuietHours(start: "22:00", end: "07:00"))
        // 23:30 in Berlin (winter, UTC+1) is 22:30 UTC; the window ends at 07:00 Berlin = 06:00 UTC.
        #expect(quiet.windowEnd(containing: Self.instant("2026-01-10T22:30:00Z"), in: Self.berlin) == Self.instant("2026-01-11T06:00:00Z"))
        // 05:00 Berlin is after midnight: the same day's 07:00.
        #expect(quiet.windowEnd(containing: Self.instant("2026-01-11T04:00:00Z"), in: Self.berlin) == Self.instant("2026-01-11T06:00:00Z"))
        // 07:00 exactly and 21:59 are outside.
        #expect(quiet.windowEnd(containing: Self.instant("2026-01-11T06:00:00Z"), in: Self.berlin) == nil)
        #expect(quiet.windowEnd(containing: Self.instant("2026-01-11T20:59:00Z"), in: Self.berlin) == nil)
    }

    @Test func aDaytimeWindowEndsTheSameDay() throws {
        let quiet = try #require(QuietHours(start: "13:00", end: "15:00"))
        #expect(quiet.windowEnd(containing: Self.instant("2026-06-01T17:30:00Z"), in: Self.newYork) == Self.instant("2026-06-01T19:00:00Z"))
        #expect(quiet.windowEnd(containing: Self.instant("2026-06-01T16:59:00Z"), in: Self.newYork) == nil)
    }

    @Test func theWindowEndFollowsDaylightSavingTime() throws {
        // Berlin moves to summer time on 29 March 2026: 07:00 that morning is 05:00 UTC, not 06:00.
        let quiet = try #require(QuietHours(start: "22:00", end: "07:00"))
        #expect(quiet.windowEnd(containing: Self.instant("2026-03-28T23:00:00Z"), in: Self.berlin) == Self.instant("2026-03-29T05:00:00Z"))
        // A window ending in the skipped hour (02:30 does not exist that night) ends at the next real minute.
        let skipped = try #require(QuietHours(start: "01:00", end: "02:30"))
        let end = try #require(skipped.windowEnd(containing: Self.instant("2026-03-29T00:30:00Z"), in: Self.berlin))
        #expect(end >= Self.instant("2026-03-29T01:00:00Z") && end <= Self.instant("2026-03-29T01:30:00Z"))
    }

    @Test func equalStartAndEndIsNoWindow() {
        #expect(QuietHours(start: "08:00", end: "08:00") == nil)
        #expect(QuietHours(start: nil, end: "08:00") == nil)
    }

    @Test func decisionsDeferOnlyNonUrgentRemindersInsideTheWindow() throws {
        let quiet = try #require(QuietHours(start: "22:00", end: "07:00"))
        let due = Self.instant("2026-01-10T22:30:00Z")
        let now = due.addingTimeInterval(2)
        #expect(DeliveryTiming.decide(dueAt: due, now: now, urgent: false, quietHours: quiet, zone: Self.berlin)
            == .deferUntil(Self.instant("2026-01-11T06:00:00Z")))
        #expect(DeliveryTiming.decide(dueAt: due, now: now, urgent: true, quietHours: quiet, zone: Self.berlin) == .sendNow(latenessMs: 2000))
        #expect(DeliveryTiming.decide(dueAt: due, now: now, urgent: false, quietHours: nil, zone: Self.berlin) == .sendNow(latenessMs: 2000))
    }

    @Test func latenessIsMeasuredFromTheDueTimeOrTheEndOfTheWindowWaitedFor() throws {
        let due = Self.instant("2026-01-10T08:00:00Z")
        // Overdue after a restart: an hour late.
        #expect(DeliveryTiming.decide(dueAt: due, now: due.addingTimeInterval(3600), urgent: false, quietHours: nil, zone: .gmt)
            == .sendNow(latenessMs: 3_600_000))
        // Deferred to 09:00 and sent at 09:00:01.5: 1.5 s late, not an hour.
        let windowEnd = Self.instant("2026-01-10T09:00:00Z")
        #expect(DeliveryTiming.decide(
            dueAt: due, now: windowEnd.addingTimeInterval(1.5), urgent: false, quietHours: nil, zone: .gmt, deferredUntil: windowEnd)
            == .sendNow(latenessMs: 1500))
        // Early (a clock a little ahead): never negative.
        #expect(DeliveryTiming.decide(dueAt: due, now: due.addingTimeInterval(-1), urgent: false, quietHours: nil, zone: .gmt) == .sendNow(latenessMs: 0))
    }

    @Test func theZoneIsTheSettingThenTheProfileThenUTC() {
        #expect(DeliveryTiming.zone(setting: "Europe/Berlin", profile: "America/New_York") == Self.berlin)
        #expect(DeliveryTiming.zone(setting: nil, profile: "America/New_York") == Self.newYork)
        #expect(DeliveryTiming.zone(setting: "Not/AZone", profile: nil) == .gmt)
    }

    @Test func localDateTimesReadInAZoneOrWithTheirOffset() {
        #expect(LocalDateTime.instant("2026-03-03T18:00:00", in: Self.berlin) == Self.instant("2026-03-03T17:00:00Z"))
        #expect(LocalDateTime.instant("2026-03-03T18:00", in: Self.berlin) == Self.instant("2026-03-03T17:00:00Z"))
        #expect(LocalDateTime.instant("2026-03-03T18:00:00-05:00", in: Self.berlin) == Self.instant("2026-03-03T23:00:00Z"))
        #expect(LocalDateTime.instant("2026-03-03T18:00:00Z", in: Self.berlin) == Self.instant("2026-03-03T18:00:00Z"))
        #expect(LocalDateTime.instant("2026-03-03T18:00:00.250+01:00", in: .gmt) == Self.instant("2026-03-03T17:00:00Z"))
        for bad in ["2026-02-30T10:00:00", "2026-13-01T10:00:00", "tomorrow", "2026-03-03", "2026-03-03T25:00:00", "2026-03-03T18:00:00+5"] {
            #expect(LocalDateTime.instant(bad, in: .gmt) == nil, "\(bad)")
        }
    }
}
