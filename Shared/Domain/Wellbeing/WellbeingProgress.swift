import Foundation

/// One local day of a craving trend.
public struct DayUrge: Codable, Sendable, Equatable {
    /// The local calendar day as `YYYY-MM-DD`.
    public let day: String
    /// The mean urge level of the day's check-ins, rounded half up to one decimal; nil without any.
    public let averageUrge: Double?
    public let checkIns: Int
    /// The sum of the day's urge levels, so that averages over several days weigh each check-in
    /// equally instead of averaging rounded daily averages.
    public let urgeTotal: Int

    public init(day: String, checkIns: Int, urgeTotal: Int) {
        self.day = day
        self.checkIns = max(0, checkIns)
        self.urgeTotal = max(0, urgeTotal)
        self.averageUrge = WellbeingClock.tenths(sum: self.urgeTotal, count: self.checkIns)
    }

    enum CodingKeys: String, CodingKey {
        case day
        case averageUrge = "average_urge"
        case checkIns = "check_ins"
        case urgeTotal = "urge_total"
    }
}

/// How often the user asked to be reminded to check in.
public enum WellbeingReminderCadence: String, Codable, Sendable, CaseIterable {
    case daily, weekdays, weekly, off
}

/// Something the wellbeing home screen suggests doing now.
public struct WellbeingTask: Codable, Sendable, Equatable {
    public static let checkInID = "check-in"
    public static let exerciseID = "exercise"
    public static let weeklyReflectionID = "weekly-reflection"

    public let id: String
    public let title: String
    /// For the weekly reflection: the Monday (`YYYY-MM-DD`) of the week it reflects on.
    public let weekStart: String?

    public init(id: String, title: String, weekStart: String? = nil) {
        self.id = id
        self.title = title
        self.weekStart = weekStart
    }

    enum CodingKeys: String, CodingKey {
        case id, title
        case weekStart = "week_start"
    }
}

/// A user's wellbeing progress as of `now`, read in their time zone: streaks, the craving trend,
/// recent quizzes and exercises, badges and what to do next.
///
/// Everything is computed from the records alone, as of `now`: records after `now` are ignored,
/// so the same records and `now` always give the same progress. A day is "active" when it has at
/// least one check-in (with or without its exercise) or one exercise.
public struct WellbeingProgress: Sendable {
    /// A badge the user has earned. `earnedAt` is the instant of the event that earned it.
    public struct Badge: Codable, Sendable, Equatable, Identifiable {
        public let id: String
        public let title: String
        public let earnedAt: Date

        public init(id: String, title: String, earnedAt: Date) {
            self.id = id
            self.title = title
            self.earnedAt = earnedAt
        }

        enum CodingKeys: String, CodingKey {
            case id, title
            case earnedAt = "earned_at"
        }
    }

    /// A badge that can be earned, with its rule in words for the list of badges still to come.
    public struct BadgeRule: Codable, Sendable, Equatable, Identifiable {
        public let id: String
        public let title: String
        public let criterion: String
    }

    /// Every badge, in the order they are listed to the user.
    ///
    /// - `first-checkin`: the first check-in. Earned at that check-in.
    /// - `first-week`: seven consecutive active local days. Earned at the first event (check-in or
    ///   exercise) of the seventh day of the first such run.
    /// - `thirty-day-streak`: thirty consecutive active local days. Earned like `first-week`, on
    ///   the thirtieth day.
    /// - `ten-quizzes`: ten finished quizzes. Earned at the tenth.
    /// - `perfect-quiz`: a quiz with every answer right and at least three questions
    ///   (`score == total`, `total >= 3`). Earned at the first such quiz.
    /// - `five-exercises`: five exercise records (check-ins' own exercises are not counted; see
    ///   `CheckInRecord`). Earned at the fifth.
    /// - `urge-surfer`: ten surfed urges. A check-in with urge level 7 or more is surfed when the
    ///   check-in itself records a completed exercise, or when an exercise record falls between
    ///   the check-in and 60 minutes after it, both ends included. It is surfed at that instant:
    ///   the check-in's own for its own exercise, else the first such exercise. One exercise may
    ///   surf several check-ins (two check-ins ten minutes apart, then one exercise). Earned at the
    ///   instant the tenth urge, in order of those instants, is surfed.
    /// - `calm-week`: a Monday-start local week whose check-ins so far number at least five and
    ///   average an urge level of 3 or less (unrounded). Earned at the first check-in after which
    ///   its week meets that. Judging the week so far, not once it is over, means a badge is never
    ///   taken back when a later check-in that week raises the average.
    public static let rules: [BadgeRule] = [
        BadgeRule(id: "first-checkin", title: "First check-in", criterion: "Complete your first check-in."),
        BadgeRule(id: "first-week", title: "First week", criterion: "Check in or practise on seven days in a row."),
        BadgeRule(id: "thirty-day-streak", title: "Thirty-day streak", criterion: "Check in or practise on thirty days in a row."),
        BadgeRule(id: "ten-quizzes", title: "Ten quizzes", criterion: "Finish ten quizzes."),
        BadgeRule(id: "perfect-quiz", title: "Perfect quiz", criterion: "Answer every question of a quiz of three or more questions correctly."),
        BadgeRule(id: "five-exercises", title: "Five exercises", criterion: "Complete five guided exercises or practice scenarios."),
        BadgeRule(id: "urge-surfer", title: "Urge surfer",
                  criterion: "Ten times, follow a check-in with a strong urge (7 or more) with an exercise within an hour."),
        BadgeRule(id: "calm-week", title: "Calm week",
                  criterion: "In one week (Monday to Sunday), check in at least five times with an average urge of 3 or less."),
    ]

    public static let highUrge = 7
    public static let surfWindow: TimeInterval = 60 * 60

    public let timeZone: TimeZone
    public let now: Date
    /// The records at or before `now`, oldest first.
    public let checkIns: [CheckInRecord]
    public let quizzes: [QuizRecord]
    public let exercises: [ExerciseRecord]

    public init(checkIns: [CheckInRecord], quizzes: [QuizRecord], exercises: [ExerciseRecord], timeZone: TimeZone, now: Date) {
        self.timeZone = timeZone
        self.now = now
        self.checkIns = WellbeingClock.chronological(checkIns.filter { $0.at <= now }, at: \.at)
        self.quizzes = WellbeingClock.chronological(quizzes.filter { $0.at <= now }, at: \.at)
        self.exercises = WellbeingClock.chronological(exercises.filter { $0.at <= now }, at: \.at)
    }

    var todayNumber: Int { WellbeingClock.day(now, in: timeZone) }

    /// Today in the user's zone, as `YYYY-MM-DD`.
    public var today: String { WellbeingClock.string(todayNumber) }

    /// Consecutive active days ending today, or ending yesterday while today has nothing yet (the
    /// day is not over, so the streak is not broken); 0 otherwise.
    public var streak: Int {
        WellbeingStreaks.current(today: todayNumber, active: activeDays)
    }

    /// The longest run of consecutive active days.
    public var longestStreak: Int {
        WellbeingStreaks.longest(Set(activeDays.keys))
    }

    /// One entry per local day of the `days` days ending today, oldest first. `days` is clamped
    /// to 0...366.
    public func cravingTrend(days: Int) -> [DayUrge] {
        let count = min(max(days, 0), 366)
        guard count > 0 else { return [] }
        let first = todayNumber - count + 1
        var totals = [Int: (count: Int, sum: Int)]()
        for checkIn in checkIns {
            let day = WellbeingClock.day(checkIn.at, in: timeZone)
            guard day >= first, day <= todayNumber else { continue }
            let current = totals[day] ?? (0, 0)
            totals[day] = (current.count + 1, current.sum + checkIn.clampedUrge)
        }
        return (first...todayNumber).map { day in
            let total = totals[day] ?? (0, 0)
            return DayUrge(day: WellbeingClock.string(day), checkIns: total.count, urgeTotal: total.sum)
        }
    }

    /// The latest `limit` quizzes, newest first.
    public func quizHistory(limit: Int = 10) -> [QuizRecord] {
        Array(quizzes.reversed().prefix(max(0, limit)))
    }

    /// The exercise records of the `days` local days ending today, newest first.
    public func exercisesDone(days: Int) -> [ExerciseRecord] {
        guard days > 0 else { return [] }
        let first = todayNumber - days + 1
        return exercises.reversed().filter { WellbeingClock.day($0.at, in: timeZone) >= first }
    }

    /// The badges earned, by `earnedAt` (ties in the order of `rules`).
    public var badges: [Badge] {
        var earned: [String: Date] = [:]
        if let first = checkIns.first { earned["first-checkin"] = first.at }

        var run = 0, previous: Int?
        for (day, firstEvent) in activeDays.sorted(by: { $0.key < $1.key }) {
            run = (previous.map { $0 + 1 == day } ?? false) ? run + 1 : 1
            previous = day
            if run == 7, earned["first-week"] == nil { earned["first-week"] = firstEvent }
            if run == 30, earned["thirty-day-streak"] == nil { earned["thirty-day-streak"] = firstEvent }
        }

        if quizzes.count >= 10 { earned["ten-quizzes"] = quizzes[9].at }
        if let perfect = quizzes.first(where: { $0.total >= 3 && $0.score == $0.total }) { earned["perfect-quiz"] = perfect.at }
        if exercises.count >= 5 { earned["five-exercises"] = exercises[4].at }

        let surfed = surfedUrges
        if surfed.count >= 10 { earned["urge-surfer"] = surfed[9] }

        var weeks: [Int: (count: Int, sum: Int)] = [:]
        for checkIn in checkIns {
            let week = WellbeingClock.monday(of: WellbeingClock.day(checkIn.at, in: timeZone))
            let current = weeks[week] ?? (0, 0)
            let updated = (count: current.count + 1, sum: current.sum + checkIn.clampedUrge)
            weeks[week] = updated
            // sum / count <= 3 without division.
            if updated.count >= 5, updated.sum <= 3 * updated.count {
                earned["calm-week"] = earned["calm-week"] ?? checkIn.at
            }
        }

        return Self.rules.enumerated()
            .compactMap { index, rule in earned[rule.id].map { (index, Badge(id: rule.id, title: rule.title, earnedAt: $0)) } }
            .sorted { $0.1.earnedAt != $1.1.earnedAt ? $0.1.earnedAt < $1.1.earnedAt : $0.0 < $1.0 }
            .map(\.1)
    }

    /// The rules of the badges not earned yet, in the order of `rules`.
    public var remainingRules: [BadgeRule] {
        let earned = Set(badges.map(\.id))
        return Self.rules.filter { !earned.contains($0.id) }
    }

    /// What to suggest now.
    ///
    /// - "Check in today" when today has no check-in and today is a reminder day: every day for
    ///   `daily`, Monday to Friday for `weekdays`, and for `weekly` only while the current
    ///   Monday-start week has no check-in yet.
    /// - "Try a guided exercise" when no exercise was done today or on the two days before (a
    ///   check-in's own exercise counts here).
    /// - "Weekly reflection ready" on Mondays, for the week that just ended.
    ///
    /// `off` drops the two nudges but keeps the reflection, which is news rather than a reminder.
    public func upcomingTasks(cadence: WellbeingReminderCadence) -> [WellbeingTask] {
        let today = todayNumber
        let weekday = WellbeingClock.weekday(today)
        var tasks: [WellbeingTask] = []
        let checkInDays = Set(checkIns.map { WellbeingClock.day($0.at, in: timeZone) })
        let dueToday: Bool
        switch cadence {
        case .daily: dueToday = true
        case .weekdays: dueToday = weekday < 5
        case .weekly: dueToday = !checkInDays.contains { $0 >= WellbeingClock.monday(of: today) && $0 <= today }
        case .off: dueToday = false
        }
        if dueToday, !checkInDays.contains(today) {
            tasks.append(WellbeingTask(id: WellbeingTask.checkInID, title: "Check in today"))
        }
        if cadence != .off {
            let practised = exercises.contains { WellbeingClock.day($0.at, in: timeZone) >= today - 2 }
                || checkIns.contains { $0.exerciseCompleted && WellbeingClock.day($0.at, in: timeZone) >= today - 2 }
            if !practised {
                tasks.append(WellbeingTask(id: WellbeingTask.exerciseID, title: "Try a guided exercise"))
            }
        }
        if weekday == 0 {
            tasks.append(WellbeingTask(id: WellbeingTask.weeklyReflectionID, title: "Weekly reflection ready",
                                       weekStart: WellbeingClock.string(today - 7)))
        }
        return tasks
    }

    // MARK: Internals

    /// Each active local day with the instant of its first event.
    var activeDays: [Int: Date] {
        WellbeingStreaks.activeDays(checkIns: checkIns, exercises: exercises, in: timeZone)
    }

    /// The instants at which high-urge check-ins were surfed, in order (see `rules`).
    var surfedUrges: [Date] {
        var instants: [Date] = []
        for checkIn in checkIns where checkIn.clampedUrge >= Self.highUrge {
            if checkIn.exerciseCompleted {
                instants.append(checkIn.at)
            } else if let exercise = exercises.first(where: {
                $0.at >= checkIn.at && $0.at.timeIntervalSince(checkIn.at) <= Self.surfWindow
            }) {
                instants.append(exercise.at)
            }
        }
        return instants.sorted()
    }
}

/// Streak arithmetic on local day numbers, shared by progress and the weekly figures.
enum WellbeingStreaks {
    static func activeDays(checkIns: [CheckInRecord], exercises: [ExerciseRecord], in zone: TimeZone) -> [Int: Date] {
        var days: [Int: Date] = [:]
        func note(_ instant: Date) {
            let day = WellbeingClock.day(instant, in: zone)
            if let known = days[day], known <= instant { return }
            days[day] = instant
        }
        checkIns.forEach { note($0.at) }
        exercises.forEach { note($0.at) }
        return days
    }

    /// The run of consecutive active days ending exactly on `day`; 0 when `day` is not active.
    static func run(endingOn day: Int, active: [Int: Date]) -> Int {
        var length = 0
        while active[day - length] != nil { length += 1 }
        return length
    }

    static func current(today: Int, active: [Int: Date]) -> Int {
        active[today] != nil ? run(endingOn: today, active: active) : run(endingOn: today - 1, active: active)
    }

    static func longest(_ days: Set<Int>) -> Int {
        var best = 0
        for day in days where !days.contains(day - 1) {
            var length = 1
            while days.contains(day + length) { length += 1 }
            best = max(best, length)
        }
        return best
    }
}
