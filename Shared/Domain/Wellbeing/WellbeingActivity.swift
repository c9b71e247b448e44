import Foundation

/// One check-in: how the user felt and how strong the urge was at `at`.
///
/// `exerciseCompleted` marks the short exercise the check-in flow offers. It answers "did the user
/// practise?" (the three-day exercise nudge, `urge-surfer`), but it never adds to exercise
/// counts: the practice screen may log an `ExerciseRecord` for the same session, and counting
/// both would count it twice.
public struct CheckInRecord: Codable, Sendable, Equatable, Identifiable {
    public let id: UUID
    public let at: Date
    /// 1...10; values outside are clamped when averaged.
    public let mood: Int
    /// 0...10; values outside are clamped when averaged or compared.
    public let urgeLevel: Int
    public let triggers: [WellbeingTrigger]
    public let exerciseCompleted: Bool

    public init(id: UUID = UUID(), at: Date, mood: Int, urgeLevel: Int, triggers: [WellbeingTrigger] = [],
                exerciseCompleted: Bool = false) {
        self.id = id
        self.at = at
        self.mood = mood
        self.urgeLevel = urgeLevel
        self.triggers = triggers
        self.exerciseCompleted = exerciseCompleted
    }

    /// Triggers read from the user's own words (`trigger_context`) with `WellbeingTrigger.classify`.
    public init(id: UUID = UUID(), at: Date, mood: Int, urgeLevel: Int, triggerContext: String, exerciseCompleted: Bool = false) {
        self.init(id: id, at: at, mood: mood, urgeLevel: urgeLevel, triggers: WellbeingTrigger.classify(triggerContext),
                  exerciseCompleted: exerciseCompleted)
    }

    enum CodingKeys: String, CodingKey {
        case id, at, mood, triggers
        case urgeLevel = "urge_level"
        case exerciseCompleted = "exercise_completed"
    }

    var clampedMood: Int { min(max(mood, 1), 10) }
    var clampedUrge: Int { min(max(urgeLevel, 0), 10) }
}

/// One finished quiz: `score` right answers out of `total` questions in `domain`.
public struct QuizRecord: Codable, Sendable, Equatable, Identifiable {
    public let id: UUID
    public let at: Date
    public let domain: String
    public let score: Int
    public let total: Int

    public init(id: UUID = UUID(), at: Date, domain: String, score: Int, total: Int) {
        self.id = id
        self.at = at
        self.domain = domain
        self.score = score
        self.total = total
    }

    /// A score outside 0...total (a client bug) must not push accuracy past 100%.
    var clampedScore: Int { min(max(score, 0), max(total, 0)) }
}

/// One exercise done on the practice screen.
public struct ExerciseRecord: Codable, Sendable, Equatable, Identifiable {
    public static let audio = "audio"
    public static let scenario = "scenario"

    public let id: UUID
    public let at: Date
    /// `audio` (a guided recording) or `scenario` (a practice scenario).
    public let kind: String

    public init(id: UUID = UUID(), at: Date, kind: String) {
        self.id = id
        self.at = at
        self.kind = kind
    }
}

/// Local calendar days as whole numbers (days since 1970-01-01 on the user's wall clock).
///
/// The wall clock is read from the zone's UTC offset at each instant rather than through
/// `Calendar`, so days, weeks and DST handling are the same on every platform and cheap enough
/// to compute per event.
enum WellbeingClock {
    static let secondsPerDay = 86_400

    static func seconds(_ instant: Date) -> Int {
        Int(instant.timeIntervalSince1970.rounded(.down))
    }

    static func offset(atSecond second: Int, in zone: TimeZone) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(second)))
    }

    /// Seconds since 1970-01-01T00:00 of the wall-clock reading at `instant`, as if that reading were UTC.
    static func wallSeconds(_ instant: Date, in zone: TimeZone) -> Int {
        seconds(instant) + zone.secondsFromGMT(for: instant)
    }

    static func day(_ instant: Date, in zone: TimeZone) -> Int {
        floorDiv(wallSeconds(instant, in: zone), secondsPerDay)
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// 0 for Monday through 6 for Sunday.
    static func weekday(_ day: Int) -> Int {
        ((day % 7) + 7 + 3) % 7  // Day 0, 1970-01-01, was a Thursday.
    }

    static func monday(of day: Int) -> Int {
        day - weekday(day)
    }

    /// Civil date of a day number (days since 1970-01-01).
    static func civil(_ day: Int) -> (year: Int, month: Int, day: Int) {
        let date = CalendarDay(daysSinceEpoch: day)
        return (date.year, date.month, date.day)
    }

    /// `YYYY-MM-DD`.
    static func string(_ day: Int) -> String {
        CalendarDay(daysSinceEpoch: day).isoDate
    }

    /// A day written exactly as `YYYY-MM-DD` that the calendar has; nil otherwise.
    static func parse(_ text: String) -> Int? {
        CalendarDay(isoDate: text)?.daysSinceEpoch
    }

    /// `sum / count` rounded half up to one decimal, in integers so that 2.25 becomes 2.3 rather
    /// than whatever the nearest double of 2.25 × 10 rounds to. `sum` must not be negative.
    static func tenths(sum: Int, count: Int) -> Double? {
        guard count > 0 else { return nil }
        return Double((20 * sum + count) / (2 * count)) / 10
    }

    /// Oldest first; equal instants keep the caller's order, so results never depend on sort stability.
    static func chronological<T>(_ items: [T], at: (T) -> Date) -> [T] {
        items.enumerated()
            .sorted { lhs, rhs in
                let (l, r) = (at(lhs.element), at(rhs.element))
                return l != r ? l < r : lhs.offset < rhs.offset
            }
            .map(\.element)
    }
}
