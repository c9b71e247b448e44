import Foundation
import HearthDomain
import Testing

@Suite struct NextFeedPredictorTests {
    static let london = TimeZone(identifier: "Europe/London")!
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let hour: TimeInterval = 3600
    static let minute: TimeInterval = 60

    static func local(_ text: String, _ zone: TimeZone = .gmt) -> Date { LocalDateTime.instant(text, in: zone)! }

    static func feeds(on day: String, _ times: [String], _ zone: TimeZone = .gmt) -> [Date] {
        times.map { local("\(day)T\($0)", zone) }
    }

    /// Two days and a night in New York: 2.5 h by day (2 h before the 19:00 feed), 4 h and 5 h
    /// at night and 3 h from the 04:00 feed to breakfast.
    static let nightsAndDays: [Date] =
        feeds(on: "2026-01-05", ["07:00", "09:30", "12:00", "14:30", "17:00", "19:00", "23:00"], newYork)
        + feeds(on: "2026-01-06", ["04:00", "07:00", "09:30", "12:00", "14:30", "17:00", "19:00", "23:00"], newYork)
        + feeds(on: "2026-01-07", ["04:00"], newYork)

    @Test func regularDaytimeFeedsEveryThreeHoursPredictThreeHoursOn() throws {
        let feeds = Self.feeds(on: "2026-01-10", ["07:00", "10:00", "13:00", "16:00"])
        let prediction = try #require(
            NextFeedPredictor.predict(feeds: feeds, timeZone: .gmt, now: Self.local("2026-01-10T16:30")))
        #expect(prediction.predictedAt == Self.local("2026-01-10T19:00"))
        #expect(prediction.basis == .day)
        #expect(prediction.medianInterval == 3 * Self.hour)
        #expect(prediction.intervalsUsed == 3)
        #expect(prediction.lastFeedAt == Self.local("2026-01-10T16:00"))
        #expect(!prediction.overdue)
        #expect(prediction.explanation == "median of the last 3 daytime intervals (3 h) after the feed at 16:00")
    }

    @Test func eveningClusterFeedsSplitAtNightfallAndCloseFeedsMerge() throws {
        // 19:10/19:20 and 21:00/21:10 are each one session; 18:00 and 18:35 start day intervals,
        // 19:10 onwards night ones.
        let feeds = Self.feeds(on: "2026-01-10", [
            "07:00", "10:00", "13:00", "16:00", "18:00", "18:35", "19:10", "19:20", "19:50", "20:25", "21:00", "21:10",
        ])
        let night = try #require(NextFeedPredictor.predict(feeds: feeds, timeZone: .gmt, now: Self.local("2026-01-10T21:15")))
        // Night intervals 40, 35 and 35 min; unmerged, the 10-minute pairs would give a 30-minute median.
        #expect(night.basis == .night)
        #expect(night.intervalsUsed == 3)
        #expect(night.medianInterval == 35 * Self.minute)
        #expect(night.lastFeedAt == Self.local("2026-01-10T21:00"))
        #expect(night.predictedAt == Self.local("2026-01-10T21:35"))
        #expect(night.explanation == "median of the last 3 nighttime intervals (35 min) after the feed at 21:00")

        // Up to 18:35 the cluster is still daytime: 3 h, 3 h, 3 h, 2 h and 35 min.
        let day = try #require(NextFeedPredictor.predict(
            feeds: Array(feeds.prefix(6)), timeZone: .gmt, now: Self.local("2026-01-10T18:40")))
        #expect(day.basis == .day)
        #expect(day.intervalsUsed == 5)
        #expect(day.medianInterval == 3 * Self.hour)
        #expect(day.predictedAt == Self.local("2026-01-10T21:35"))
    }

    @Test func aNightFeedPredictsWithTheNightMedianAndADayFeedWithTheDayMedian() throws {
        let night = try #require(NextFeedPredictor.predict(
            feeds: Self.nightsAndDays, timeZone: Self.newYork, now: Self.local("2026-01-07T04:10", Self.newYork)))
        // 4 h, 5 h, 3 h, 4 h, 5 h.
        #expect(night.basis == .night)
        #expect(night.intervalsUsed == 5)
        #expect(night.medianInterval == 4 * Self.hour)
        #expect(night.predictedAt == Self.local("2026-01-07T08:00", Self.newYork))

        let morning = Self.nightsAndDays + Self.feeds(on: "2026-01-07", ["07:00", "09:30"], Self.newYork)
        let day = try #require(NextFeedPredictor.predict(
            feeds: morning, timeZone: Self.newYork, now: Self.local("2026-01-07T09:40", Self.newYork)))
        // Eleven day intervals; the last eight are six of 2.5 h and two of 2 h.
        #expect(day.basis == .day)
        #expect(day.intervalsUsed == 8)
        #expect(day.medianInterval == 2.5 * Self.hour)
        #expect(day.predictedAt == Self.local("2026-01-07T12:00", Self.newYork))
        #expect(day.explanation == "median of the last 8 daytime intervals (2 h 30 min) after the feed at 09:30")
    }

    @Test func fewerThanThreeIntervalsOfTheKindFallBackToAllIntervals() throws {
        // Last feed at night with no night history: the two day intervals (3 h, 2 h) decide.
        let feeds = Self.feeds(on: "2026-01-10", ["14:00", "17:00", "19:00"])
        let prediction = try #require(NextFeedPredictor.predict(feeds: feeds, timeZone: .gmt, now: Self.local("2026-01-10T19:05")))
        #expect(prediction.basis == .all)
        #expect(prediction.intervalsUsed == 2)
        #expect(prediction.medianInterval == 2.5 * Self.hour)
        #expect(prediction.predictedAt == Self.local("2026-01-10T21:30"))
        #expect(prediction.explanation == "median of the last 2 intervals (2 h 30 min) after the feed at 19:00")
    }

    @Test func tooFewFeedsGiveNoPrediction() {
        let now = Self.local("2026-01-10T20:00")
        let cases: [[Date]] = [
            [],
            Self.feeds(on: "2026-01-10", ["10:00"]),
            Self.feeds(on: "2026-01-10", ["10:00", "13:00"]),
            // One session: every feed within 20 minutes of the one before.
            Self.feeds(on: "2026-01-10", ["10:00", "10:10", "10:25", "10:40"]),
            // The 9-hour gap is missing data, leaving one interval.
            Self.feeds(on: "2026-01-10", ["07:00", "10:00", "19:00"]),
        ]
        for feeds in cases {
            #expect(NextFeedPredictor.predict(feeds: feeds, timeZone: .gmt, now: now) == nil, "\(feeds)")
        }
    }

    @Test func gapsOfMoreThanEightHoursAreLeftOut() throws {
        let feeds = Self.feeds(on: "2026-01-10", ["07:00", "10:00", "13:00"]) + Self.feeds(on: "2026-01-11", ["09:00", "12:00"])
        let prediction = try #require(NextFeedPredictor.predict(feeds: feeds, timeZone: .gmt, now: Self.local("2026-01-11T12:00")))
        #expect(prediction.intervalsUsed == 3)
        #expect(prediction.medianInterval == 3 * Self.hour)
        #expect(prediction.predictedAt == Self.local("2026-01-11T15:00"))
    }

    @Test func theOrderOfTheInputAndDuplicatesDoNotMatter() {
        let now = Self.local("2026-01-07T04:10", Self.newYork)
        let expected = NextFeedPredictor.predict(feeds: Self.nightsAndDays, timeZone: Self.newYork, now: now)
        #expect(expected != nil)
        let shuffled = Self.nightsAndDays.enumerated().sorted { ($0.offset * 7) % 17 < ($1.offset * 7) % 17 }.map(\.element)
        #expect(shuffled != Self.nightsAndDays)
        for feeds in [Self.nightsAndDays.reversed(), shuffled, shuffled + Self.nightsAndDays.prefix(3)] {
            #expect(NextFeedPredictor.predict(feeds: feeds, timeZone: Self.newYork, now: now) == expected)
        }
    }

    @Test func daylightSavingDayInLondonKeepsLocalNightAndRealIntervals() throws {
        // Clocks go forward at 01:00 on 29 March 2026. Night intervals: 5 h, then 00:00 GMT to
        // 04:00 BST (3 h of real time though the clock moved 4 h), then 2 h.
        let feeds = Self.feeds(on: "2026-03-28", ["07:00", "10:00", "13:00", "16:00", "19:00"], Self.london)
            + Self.feeds(on: "2026-03-29", ["00:00", "04:00", "06:00"], Self.london)
        let night = try #require(NextFeedPredictor.predict(
            feeds: feeds, timeZone: Self.london, now: Self.local("2026-03-29T06:05", Self.london)))
        #expect(night.basis == .night)
        #expect(night.medianInterval == 3 * Self.hour)
        #expect(night.predictedAt == Self.local("2026-03-29T09:00", Self.london))
        #expect(night.predictedAt == Self.local("2026-03-29T08:00:00Z"))

        // 07:10 BST is 06:10 UTC: daytime locally, so the day median (3 h) applies, not the night one.
        let morning = feeds + [Self.local("2026-03-29T07:10", Self.london)]
        let day = try #require(NextFeedPredictor.predict(
            feeds: morning, timeZone: Self.london, now: Self.local("2026-03-29T07:15", Self.london)))
        #expect(day.basis == .day)
        #expect(day.intervalsUsed == 4)
        #expect(day.medianInterval == 3 * Self.hour)
        #expect(day.predictedAt == Self.local("2026-03-29T10:10", Self.london))
        #expect(day.explanation == "median of the last 4 daytime intervals (3 h) after the feed at 07:10")
    }

    @Test func aPredictionInThePastIsOverdueAndKeepsItsTime() throws {
        let feeds = Self.feeds(on: "2026-01-10", ["07:00", "10:00", "13:00", "16:00"])
        let due = Self.local("2026-01-10T19:00")
        let late = try #require(NextFeedPredictor.predict(feeds: feeds, timeZone: .gmt, now: due.addingTimeInterval(25 * Self.minute)))
        #expect(late.overdue)
        #expect(late.predictedAt == due)
        let onTime = try #require(NextFeedPredictor.predict(feeds: feeds, timeZone: .gmt, now: due))
        #expect(!onTime.overdue)
    }

    @Test func nightRunsFromSevenInTheEveningToSevenInTheMorning() {
        #expect(NextFeedPredictor.nightStartHour == 19)
        #expect(NextFeedPredictor.dayStartHour == 7)
        #expect(NextFeedPredictor.isNight(Self.local("2026-01-10T19:00"), in: .gmt))
        #expect(NextFeedPredictor.isNight(Self.local("2026-01-10T06:59"), in: .gmt))
        #expect(!NextFeedPredictor.isNight(Self.local("2026-01-10T07:00"), in: .gmt))
        #expect(!NextFeedPredictor.isNight(Self.local("2026-01-10T18:59"), in: .gmt))
        // 20:00 UTC is 15:00 in New York.
        #expect(!NextFeedPredictor.isNight(Self.local("2026-01-10T20:00:00Z"), in: Self.newYork))
    }
}
