import Foundation

/// One logged feed, as the statistics need it.
public struct FeedSample: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, Codable {
        case bottle, nursing, solids
    }

    public let at: Date
    public let kind: Kind
    public let bottleMl: Double?
    public let nursingMinutes: Double?

    public init(at: Date, kind: Kind, bottleMl: Double? = nil, nursingMinutes: Double? = nil) {
        self.at = at
        self.kind = kind
        self.bottleMl = bottleMl
        self.nursingMinutes = nursingMinutes
    }
}

/// One logged sleep; `end` is nil while the child is still asleep.
public struct SleepSample: Sendable, Equatable {
    public let start: Date
    public let end: Date?
    public let isNap: Bool

    public init(start: Date, end: Date?, isNap: Bool) {
        self.start = start
        self.end = end
        self.isNap = isNap
    }
}

/// One logged diaper; a wet and dirty one has both set.
public struct DiaperSample: Sendable, Equatable {
    public let at: Date
    public let wet: Bool
    public let dirty: Bool

    public init(at: Date, wet: Bool, dirty: Bool) {
        self.at = at
        self.wet = wet
        self.dirty = dirty
    }
}

/// A food the child has tried, from its first time. `unmarked` foods were un-ticked by a parent
/// and count as not tried.
public struct FoodSample: Sendable, Equatable {
    public let firstTriedAt: Date
    public let food: String
    public let colour: String?
    public let unmarked: Bool

    public init(firstTriedAt: Date, food: String, colour: String? = nil, unmarked: Bool = false) {
        self.firstTriedAt = firstTriedAt
        self.food = food
        self.colour = colour
        self.unmarked = unmarked
    }
}

/// A child's figures over a window of days, as the API returns them. Per-day figures and
/// minutes are rounded to one decimal.
public struct TrackingSummary: Sendable, Equatable, Codable {
    public let days: Int
    public let feedsPerDay: Double
    /// Nil with fewer than two feeds in the window.
    public let averageFeedIntervalMinutes: Double?
    public let bottleMlPerDay: Double
    public let nursingMinutesPerDay: Double
    public let sleepHoursPerDay: Double
    /// The longest stretch of sleep inside the window; nil when there was none.
    public let longestSleepMinutes: Double?
    public let napsPerDay: Double
    public let wetDiapersPerDay: Double
    public let dirtyDiapersPerDay: Double
    public let newFoods: [String]
    public let coloursThisWeek: [String]

    enum CodingKeys: String, CodingKey {
        case days
        case feedsPerDay = "feeds_per_day"
        case averageFeedIntervalMinutes = "average_feed_interval_minutes"
        case bottleMlPerDay = "bottle_ml_per_day"
        case nursingMinutesPerDay = "nursing_minutes_per_day"
        case sleepHoursPerDay = "sleep_hours_per_day"
        case longestSleepMinutes = "longest_sleep_minutes"
        case napsPerDay = "naps_per_day"
        case wetDiapersPerDay = "wet_diapers_per_day"
        case dirtyDiapersPerDay = "dirty_diapers_per_day"
        case newFoods = "new_foods"
        case coloursThisWeek = "colours_this_week"
    }

    public init(
        days: Int, feedsPerDay: Double, averageFeedIntervalMinutes: Double?, bottleMlPerDay: Double,
        nursingMinutesPerDay: Double, sleepHoursPerDay: Double, longestSleepMinutes: Double?, napsPerDay: Double,
        wetDiapersPerDay: Double, dirtyDiapersPerDay: Double, newFoods: [String], coloursThisWeek: [String]
    ) {
        self.days = days
        self.feedsPerDay = feedsPerDay
        self.averageFeedIntervalMinutes = averageFeedIntervalMinutes
        self.bottleMlPerDay = bottleMlPerDay
        self.nursingMinutesPerDay = nursingMinutesPerDay
        self.sleepHoursPerDay = sleepHoursPerDay
        self.longestSleepMinutes = longestSleepMinutes
        self.napsPerDay = napsPerDay
        self.wetDiapersPerDay = wetDiapersPerDay
        self.dirtyDiapersPerDay = dirtyDiapersPerDay
        self.newFoods = newFoods
        self.coloursThisWeek = coloursThisWeek
    }
}

/// Summarises a window of local calendar days ending today, in the household's zone so a day is
/// the day the parents lived. Per-day figures divide by the full number of days, today included
/// though it is only partly over.
public enum TrackingStatistics {
    /// The window's days for `colours_this_week`, whatever the window's length.
    public static let colourWeekDays = 7

    /// `days` below 1 are read as 1 so every per-day figure has a divisor. Samples after `now`
    /// (a clock ahead, a mistyped time) fall outside the window.
    public static func summary(
        days: Int, now: Date, timeZone: TimeZone,
        feeds: [FeedSample] = [], sleeps: [SleepSample] = [], diapers: [DiaperSample] = [], foods: [FoodSample] = []
    ) -> TrackingSummary {
        let days = max(1, days)
        let start = windowStart(days: days, now: now, timeZone: timeZone)
        let window = start...now
        let perDay = { (total: Double) in rounded(total / Double(days)) }

        let windowFeeds = feeds.filter { window.contains($0.at) }
        let feedTimes = windowFeeds.map(\.at).sorted()
        var averageInterval: Double?
        if let first = feedTimes.first, let last = feedTimes.last, feedTimes.count >= 2 {
            // The mean of consecutive gaps telescopes to the span over the number of gaps.
            averageInterval = rounded(last.timeIntervalSince(first) / 60 / Double(feedTimes.count - 1))
        }

        let stretches = sleepStretches(sleeps, from: start, to: now)
        let sleepSeconds = stretches.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        let longest = stretches.map { $0.end.timeIntervalSince($0.start) }.max()

        let windowDiapers = diapers.filter { window.contains($0.at) }
        let triedFoods = foods.filter { !$0.unmarked && window.contains($0.firstTriedAt) }
        let weekStart = max(start, windowStart(days: colourWeekDays, now: now, timeZone: timeZone))
        let colours = triedFoods.filter { $0.firstTriedAt >= weekStart }.compactMap { trimmedNonEmpty($0.colour) }

        return TrackingSummary(
            days: days,
            feedsPerDay: perDay(Double(windowFeeds.count)),
            averageFeedIntervalMinutes: averageInterval,
            bottleMlPerDay: perDay(windowFeeds.reduce(0) { $0 + amount($1.bottleMl) }),
            nursingMinutesPerDay: perDay(windowFeeds.reduce(0) { $0 + amount($1.nursingMinutes) }),
            sleepHoursPerDay: perDay(sleepSeconds / 3600),
            longestSleepMinutes: longest.map { rounded($0 / 60) },
            napsPerDay: perDay(Double(sleeps.filter { $0.isNap && window.contains($0.start) }.count)),
            wetDiapersPerDay: perDay(Double(windowDiapers.filter(\.wet).count)),
            dirtyDiapersPerDay: perDay(Double(windowDiapers.filter(\.dirty).count)),
            newFoods: sortedDistinct(triedFoods.compactMap { trimmedNonEmpty($0.food) }),
            coloursThisWeek: sortedDistinct(colours))
    }

    /// Local midnight `days - 1` days before today's, in `timeZone`: the window is today and the
    /// `days - 1` whole days before it. Calendar arithmetic keeps it at midnight across DST.
    public static func windowStart(days: Int, now: Date, timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        return calendar.date(byAdding: .day, value: -(max(1, days) - 1), to: today) ?? today
    }

    /// Sleeps clipped to the window and merged where they overlap, so a sleep logged twice (by
    /// both parents) is not counted twice and cannot make a day longer than 24 hours.
    static func sleepStretches(_ sleeps: [SleepSample], from start: Date, to now: Date) -> [(start: Date, end: Date)] {
        let clipped = sleeps.compactMap { sleep -> (start: Date, end: Date)? in
            let from = max(sleep.start, start), to = min(sleep.end ?? now, now)
            return from < to ? (from, to) : nil
        }.sorted { $0.start < $1.start }
        var merged: [(start: Date, end: Date)] = []
        for sleep in clipped {
            // Only a real overlap merges: a sleep that starts as another ends is a new sleep.
            if let last = merged.last, sleep.start < last.end {
                merged[merged.count - 1].end = max(last.end, sleep.end)
            } else {
                merged.append(sleep)
            }
        }
        return merged
    }

    /// A logged quantity; negative or non-finite values are typing mistakes and count as none.
    static func amount(_ value: Double?) -> Double {
        guard let value, value.isFinite, value > 0 else { return 0 }
        return value
    }

    static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }

    static func trimmedNonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// Case-insensitive order, ties by code points, so the list does not depend on the server's
    /// locale.
    static func sortedDistinct(_ values: [String]) -> [String] {
        Set(values).sorted { lhs, rhs in
            let order = lhs.caseInsensitiveCompare(rhs)
            return order == .orderedSame ? lhs < rhs : order == .orderedAscending
        }
    }
}
