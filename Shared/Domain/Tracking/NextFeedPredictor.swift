import Foundation

/// When a child's next feed is likely, with what the guess rests on so the app can show it.
public struct NextFeedPrediction: Sendable, Equatable {
    /// Which feeding intervals the median came from.
    public enum Basis: String, Sendable, Equatable, Codable {
        case night, day
        /// Too few intervals of the last feed's kind (night or day): every recent interval.
        case all
    }

    public let predictedAt: Date
    public let basis: Basis
    public let medianInterval: TimeInterval
    public let intervalsUsed: Int
    /// The start of the last feeding session (the first feed of a cluster).
    public let lastFeedAt: Date
    /// The predicted time is before now. It is kept rather than moved to now, so the app can say
    /// how late the feed is.
    public let overdue: Bool
    /// For example "median of the last 6 daytime intervals (3 h 5 min) after the feed at 14:10",
    /// with the time in the household's zone.
    public let explanation: String

    public init(
        predictedAt: Date, basis: Basis, medianInterval: TimeInterval, intervalsUsed: Int, lastFeedAt: Date, overdue: Bool,
        explanation: String
    ) {
        self.predictedAt = predictedAt
        self.basis = basis
        self.medianInterval = medianInterval
        self.intervalsUsed = intervalsUsed
        self.lastFeedAt = lastFeedAt
        self.overdue = overdue
        self.explanation = explanation
    }
}

/// Predicts the next feed from the intervals between past ones. Babies feed at different rhythms
/// by night and by day, so the last feed's kind of interval is preferred; the median keeps one
/// odd night or a forgotten log from dragging the guess.
public enum NextFeedPredictor {
    /// Local hour at which night begins (19:00).
    public static let nightStartHour = 19
    /// First local hour of the day (07:00): night is 19:00–06:59.
    public static let dayStartHour = 7
    /// Feeds closer than this are one session: cluster feeding, a top-up or a side switch logged
    /// separately, not a new feed.
    public static let clusterGap: TimeInterval = 20 * 60
    /// Gaps longer than this are taken as feeds that were not logged, not as a real interval.
    public static let missingDataGap: TimeInterval = 8 * 3600
    /// How many of the most recent intervals the median looks at by default.
    public static let defaultIntervalCount = 8
    /// Fewer intervals of the last feed's kind than this and the median uses all kinds.
    public static let minimumIntervalsOfKind = 3
    /// Fewer intervals than this altogether and there is no prediction.
    public static let minimumIntervals = 2

    /// Nil when the feeds give fewer than `minimumIntervals` usable intervals. `feeds` are feed
    /// start times in any order; `intervalCount` is the number of most recent intervals the
    /// median is taken over.
    public static func predict(
        feeds: [Date], timeZone: TimeZone, now: Date, intervalCount: Int = defaultIntervalCount
    ) -> NextFeedPrediction? {
        let sessions = sessionStarts(feeds)
        guard let last = sessions.last else { return nil }
        var intervals: [(length: TimeInterval, night: Bool)] = []
        for (start, next) in zip(sessions, sessions.dropFirst()) {
            let length = next.timeIntervalSince(start)
            guard length <= missingDataGap else { continue }
            intervals.append((length, isNight(start, in: timeZone)))
        }
        guard intervals.count >= minimumIntervals else { return nil }

        let count = max(1, intervalCount)
        let lastIsNight = isNight(last, in: timeZone)
        let sameKind = intervals.filter { $0.night == lastIsNight }.map(\.length)
        let basis: NextFeedPrediction.Basis
        let used: [TimeInterval]
        if sameKind.count >= minimumIntervalsOfKind {
            basis = lastIsNight ? .night : .day
            used = Array(sameKind.suffix(count))
        } else {
            basis = .all
            used = Array(intervals.map(\.length).suffix(count))
        }
        let interval = median(used)
        let predicted = last.addingTimeInterval(interval)
        return NextFeedPrediction(
            predictedAt: predicted, basis: basis, medianInterval: interval, intervalsUsed: used.count, lastFeedAt: last,
            overdue: predicted < now,
            explanation: explanation(basis: basis, median: interval, count: used.count, lastFeedAt: last, timeZone: timeZone))
    }

    /// Whether `instant` falls in the night, by the local hour in `timeZone`.
    public static func isNight(_ instant: Date, in timeZone: TimeZone) -> Bool {
        let hour = calendar(timeZone).component(.hour, from: instant)
        return hour >= nightStartHour || hour < dayStartHour
    }

    /// Session starts in time order. A feed joins the session when it follows the previous feed
    /// by less than `clusterGap`, so a run of close feeds stays one session however long it runs.
    static func sessionStarts(_ feeds: [Date]) -> [Date] {
        var starts: [Date] = []
        var previous: Date?
        for feed in feeds.sorted() {
            if previous.map({ feed.timeIntervalSince($0) >= clusterGap }) ?? true { starts.append(feed) }
            previous = feed
        }
        return starts
    }

    static func median(_ values: [TimeInterval]) -> TimeInterval {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    static func explanation(
        basis: NextFeedPrediction.Basis, median: TimeInterval, count: Int, lastFeedAt: Date, timeZone: TimeZone
    ) -> String {
        let kind = switch basis {
        case .night: "nighttime intervals"
        case .day: "daytime intervals"
        case .all: "intervals"
        }
        let parts = calendar(timeZone).dateComponents([.hour, .minute], from: lastFeedAt)
        let clock = LocalClockTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0)?.description ?? ""
        return "median of the last \(count) \(kind) (\(duration(median))) after the feed at \(clock)"
    }

    /// "3 h 5 min", "3 h" or "35 min", to the nearest minute.
    static func duration(_ interval: TimeInterval) -> String {
        let minutes = Int((interval / 60).rounded())
        let hours = minutes / 60, rest = minutes % 60
        if hours == 0 { return "\(rest) min" }
        return rest == 0 ? "\(hours) h" : "\(hours) h \(rest) min"
    }

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
