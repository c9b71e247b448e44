import Foundation
import HearthDomain
import Testing

@Suite struct TrackingStatisticsTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func local(_ text: String, _ zone: TimeZone = berlin) -> Date { LocalDateTime.instant(text, in: zone)! }

    /// Saturday evening, 14 February 2026: the 7-day window is 8–14 February, from midnight Berlin time.
    static let now = local("2026-02-14T20:00")
    static let weekDays = 8...14

    static func day(_ day: Int, _ time: String) -> Date {
        local("2026-02-\(day < 10 ? "0" : "")\(day)T\(time)")
    }

    static let weekFeeds: [FeedSample] =
        [FeedSample(at: day(7, "22:00"), kind: .bottle, bottleMl: 200)]
        + weekDays.flatMap { date in
            [
                FeedSample(at: day(date, "08:00"), kind: .bottle, bottleMl: date == 8 ? 100 : 120),
                FeedSample(at: day(date, "14:00"), kind: .nursing, nursingMinutes: 15),
            ]
        }
        + [
            FeedSample(at: day(13, "12:00"), kind: .solids),
            FeedSample(at: day(14, "12:00"), kind: .solids),
            FeedSample(at: day(14, "21:00"), kind: .bottle, bottleMl: 150),
        ]

    static let weekSleeps: [SleepSample] =
        [
            SleepSample(start: day(7, "13:00"), end: day(7, "14:00"), isNap: true),
            SleepSample(start: day(7, "20:00"), end: day(8, "06:00"), isNap: false),
        ]
        + (8...13).map { SleepSample(start: day($0, "20:00"), end: day($0 + 1, "06:00"), isNap: false) }
        + [
            SleepSample(start: day(10, "13:00"), end: day(10, "15:00"), isNap: true),
            SleepSample(start: day(14, "13:00"), end: day(14, "14:30"), isNap: true),
        ]

    static let weekDiapers: [DiaperSample] =
        [DiaperSample(at: day(7, "23:00"), wet: true, dirty: true)]
        + weekDays.map { DiaperSample(at: day($0, "09:00"), wet: true, dirty: false) }
        + [8, 10, 12].map { DiaperSample(at: day($0, "10:00"), wet: false, dirty: true) }
        + [11, 13].map { DiaperSample(at: day($0, "11:00"), wet: true, dirty: true) }

    static let weekFoods: [FoodSample] = [
        FoodSample(firstTriedAt: day(10, "12:00"), food: "banana", colour: "yellow"),
        FoodSample(firstTriedAt: day(12, "12:00"), food: "avocado", colour: "green"),
        FoodSample(firstTriedAt: day(13, "12:00"), food: "peas", colour: "green"),
        FoodSample(firstTriedAt: day(11, "12:00"), food: "beetroot", colour: "red", unmarked: true),
        FoodSample(firstTriedAt: local("2026-02-01T12:00"), food: "carrot", colour: "orange"),
    ]

    static func week() -> TrackingSummary {
        TrackingStatistics.summary(
            days: 7, now: now, timeZone: berlin, feeds: weekFeeds, sleeps: weekSleeps, diapers: weekDiapers, foods: weekFoods)
    }

    @Test func aFixedWeekGivesTheHandComputedFigures() {
        let summary = Self.week()
        #expect(summary.days == 7)
        // 14 milk feeds and 2 solids; the feeds on the 7th and at 21:00 today are outside.
        #expect(summary.feedsPerDay == 2.3)
        // 8 Feb 08:00 to 14 Feb 14:00 is 9,000 minutes over 15 gaps.
        #expect(summary.averageFeedIntervalMinutes == 600)
        // (100 + 6 × 120) / 7 = 117.14.
        #expect(summary.bottleMlPerDay == 117.1)
        #expect(summary.nursingMinutesPerDay == 15)
        // 6 h of the night into the 8th, six 10-hour nights and 3.5 h of naps: 69.5 h / 7.
        #expect(summary.sleepHoursPerDay == 9.9)
        #expect(summary.longestSleepMinutes == 600)
        #expect(summary.napsPerDay == 0.3)
        // Wet: 7 wet and 2 both; dirty: 3 dirty and 2 both.
        #expect(summary.wetDiapersPerDay == 1.3)
        #expect(summary.dirtyDiapersPerDay == 0.7)
        #expect(summary.newFoods == ["avocado", "banana", "peas"])
        #expect(summary.coloursThisWeek == ["green", "yellow"])
    }

    @Test func theWindowStartsAtLocalMidnightDaysBack() {
        #expect(TrackingStatistics.windowStart(days: 7, now: Self.now, timeZone: Self.berlin) == Self.local("2026-02-08T00:00"))
        #expect(TrackingStatistics.windowStart(days: 1, now: Self.now, timeZone: Self.berlin) == Self.local("2026-02-14T00:00"))
        // Across the switch to summer time (29 March) the start is still midnight.
        #expect(TrackingStatistics.windowStart(days: 7, now: Self.local("2026-03-31T12:00"), timeZone: Self.berlin)
            == Self.local("2026-03-25T00:00"))
        // 23:30 UTC on the 7th is already the 8th in Berlin; 22:59 UTC is not.
        let feeds = [
            FeedSample(at: Self.local("2026-02-07T23:30:00Z"), kind: .bottle),
            FeedSample(at: Self.local("2026-02-07T22:59:00Z"), kind: .bottle),
        ]
        #expect(TrackingStatistics.summary(days: 7, now: Self.now, timeZone: Self.berlin, feeds: feeds).feedsPerDay == 0.1)
    }

    @Test func sleepCrossingTheWindowStartIsClipped() {
        let sleeps = [SleepSample(start: Self.day(13, "20:00"), end: Self.day(14, "06:00"), isNap: false)]
        let summary = TrackingStatistics.summary(days: 1, now: Self.day(14, "08:00"), timeZone: Self.berlin, sleeps: sleeps)
        #expect(summary.sleepHoursPerDay == 6)
        #expect(summary.longestSleepMinutes == 360)
    }

    @Test func ongoingSleepCountsUpToNow() {
        let sleeps = [
            SleepSample(start: Self.day(14, "13:00"), end: Self.day(14, "13:45"), isNap: true),
            SleepSample(start: Self.day(14, "19:00"), end: nil, isNap: false),
        ]
        let summary = TrackingStatistics.summary(days: 1, now: Self.now, timeZone: Self.berlin, sleeps: sleeps)
        #expect(summary.sleepHoursPerDay == 1.8)
        #expect(summary.longestSleepMinutes == 60)
        #expect(summary.napsPerDay == 1)
    }

    @Test func overlappingSleepsAreCountedOnce() {
        // Both parents logged the same night, one of them a little late.
        let sleeps = [
            SleepSample(start: Self.day(13, "20:00"), end: Self.day(14, "06:00"), isNap: false),
            SleepSample(start: Self.day(13, "20:30"), end: Self.day(14, "06:30"), isNap: false),
        ]
        let summary = TrackingStatistics.summary(days: 7, now: Self.now, timeZone: Self.berlin, sleeps: sleeps)
        #expect(summary.sleepHoursPerDay == 1.5)
        #expect(summary.longestSleepMinutes == 630)
    }

    @Test func aWetAndDirtyDiaperCountsAsBoth() {
        let diapers = [
            DiaperSample(at: Self.day(14, "09:00"), wet: true, dirty: true),
            DiaperSample(at: Self.day(14, "12:00"), wet: true, dirty: false),
        ]
        let summary = TrackingStatistics.summary(days: 1, now: Self.now, timeZone: Self.berlin, diapers: diapers)
        #expect(summary.wetDiapersPerDay == 2)
        #expect(summary.dirtyDiapersPerDay == 1)
    }

    @Test func unmarkedFoodsAndOlderColoursAreLeftOut() {
        let foods = [
            FoodSample(firstTriedAt: Self.day(14, "12:00"), food: "beetroot", colour: "red", unmarked: true),
            FoodSample(firstTriedAt: Self.day(13, "12:00"), food: "Pear", colour: "green"),
            FoodSample(firstTriedAt: Self.day(12, "12:00"), food: "apple", colour: "red"),
            // Inside a 30-day window but before its last seven days.
            FoodSample(firstTriedAt: Self.local("2026-01-25T12:00"), food: "plum", colour: "purple"),
            FoodSample(firstTriedAt: Self.local("2026-02-07T12:00"), food: "kale", colour: "green"),
            // Before the 30-day window.
            FoodSample(firstTriedAt: Self.local("2026-01-10T12:00"), food: "rice", colour: "white"),
        ]
        let week = TrackingStatistics.summary(days: 7, now: Self.now, timeZone: Self.berlin, foods: foods)
        #expect(week.newFoods == ["apple", "Pear"])
        #expect(week.coloursThisWeek == ["green", "red"])
        let month = TrackingStatistics.summary(days: 30, now: Self.now, timeZone: Self.berlin, foods: foods)
        #expect(month.days == 30)
        #expect(month.newFoods == ["apple", "kale", "Pear", "plum"])
        #expect(month.coloursThisWeek == ["green", "red"])
    }

    @Test func emptyInputGivesZerosAndNils() {
        let expected = TrackingSummary(
            days: 7, feedsPerDay: 0, averageFeedIntervalMinutes: nil, bottleMlPerDay: 0, nursingMinutesPerDay: 0,
            sleepHoursPerDay: 0, longestSleepMinutes: nil, napsPerDay: 0, wetDiapersPerDay: 0, dirtyDiapersPerDay: 0,
            newFoods: [], coloursThisWeek: [])
        #expect(TrackingStatistics.summary(days: 7, now: Self.now, timeZone: Self.berlin) == expected)
        // One feed: a rate but no interval.
        let one = TrackingStatistics.summary(
            days: 7, now: Self.now, timeZone: Self.berlin, feeds: [FeedSample(at: Self.day(14, "08:00"), kind: .nursing)])
        #expect(one.feedsPerDay == 0.1)
        #expect(one.averageFeedIntervalMinutes == nil)
        // A zero-day window still has a divisor.
        #expect(TrackingStatistics.summary(days: 0, now: Self.now, timeZone: Self.berlin).days == 1)
    }

    @Test func theSummaryEncodesWithSnakeCaseKeys() throws {
        let summary = Self.week()
        let data = try JSONEncoder().encode(summary)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == [
            "days", "feeds_per_day", "average_feed_interval_minutes", "bottle_ml_per_day", "nursing_minutes_per_day",
            "sleep_hours_per_day", "longest_sleep_minutes", "naps_per_day", "wet_diapers_per_day", "dirty_diapers_per_day",
            "new_foods", "colours_this_week",
        ])
        #expect(object["feeds_per_day"] as? Double == 2.3)
        #expect(try JSONDecoder().decode(TrackingSummary.self, from: data) == summary)
    }
}
