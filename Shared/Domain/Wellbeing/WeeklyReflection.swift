import Foundation

/// The figures of one Monday-start local week, the only source of numbers for its reflection.
public struct WeeklyFigures: Codable, Sendable, Equatable {
    public struct TriggerCount: Codable, Sendable, Equatable {
        public let trigger: WellbeingTrigger
        /// Check-ins that named the trigger (each check-in counts a trigger once).
        public let count: Int

        public init(trigger: WellbeingTrigger, count: Int) {
            self.trigger = trigger
            self.count = count
        }
    }

    /// The Monday, `YYYY-MM-DD`.
    public let weekStart: String
    public let checkIns: Int
    /// Mean mood, rounded half up to one decimal; nil without check-ins.
    public let averageMood: Double?
    /// Mean urge level, rounded half up to one decimal; nil without check-ins.
    public let averageUrge: Double?
    /// The week before's `averageUrge`.
    public let previousAverageUrge: Double?
    /// Check-ins with an urge level of 7 or more.
    public let highUrgeCount: Int
    /// At most three, most named first, ties in trigger name order.
    public let topTriggers: [TriggerCount]
    /// Exercise records (a check-in's own exercise is not counted; see `CheckInRecord`).
    public let exercises: Int
    public let quizzes: Int
    /// Right answers over all questions of the week's quizzes, in whole percent rounded half up;
    /// nil without quizzes (or when they had no questions).
    public let quizAccuracy: Int?
    /// Consecutive active days ending on the week's Sunday (0 if the Sunday was not active). For
    /// a week still in progress at `now`, the current streak then, as `WellbeingProgress.streak`.
    public let streakAtEnd: Int
    public let daysWithCheckIn: Int
    /// The seven days, Monday first.
    public let days: [DayUrge]

    public init(weekStart: String, checkIns: Int, averageMood: Double?, averageUrge: Double?, previousAverageUrge: Double?,
                highUrgeCount: Int, topTriggers: [TriggerCount], exercises: Int, quizzes: Int, quizAccuracy: Int?,
                streakAtEnd: Int, daysWithCheckIn: Int, days: [DayUrge]) {
        self.weekStart = weekStart
        self.checkIns = checkIns
        self.averageMood = averageMood
        self.averageUrge = averageUrge
        self.previousAverageUrge = previousAverageUrge
        self.highUrgeCount = highUrgeCount
        self.topTriggers = topTriggers
        self.exercises = exercises
        self.quizzes = quizzes
        self.quizAccuracy = quizAccuracy
        self.streakAtEnd = streakAtEnd
        self.daysWithCheckIn = daysWithCheckIn
        self.days = days
    }

    enum CodingKeys: String, CodingKey {
        case weekStart = "week_start"
        case checkIns = "check_ins"
        case averageMood = "average_mood"
        case averageUrge = "average_urge"
        case previousAverageUrge = "previous_average_urge"
        case highUrgeCount = "high_urge_count"
        case topTriggers = "top_triggers"
        case exercises, quizzes
        case quizAccuracy = "quiz_accuracy"
        case streakAtEnd = "streak_at_end"
        case daysWithCheckIn = "days_with_check_in"
        case days
    }

    /// The Sunday ending the week, `YYYY-MM-DD` (nil when `weekStart` is not a date).
    public var weekEnd: String? {
        WellbeingClock.parse(weekStart).map { WellbeingClock.string($0 + 6) }
    }

    /// The Monday (`YYYY-MM-DD`) of the local week holding `instant`.
    public static func week(containing instant: Date, timeZone: TimeZone) -> String {
        WellbeingClock.string(WellbeingClock.monday(of: WellbeingClock.day(instant, in: timeZone)))
    }

    /// Reads `week=YYYY-MM-DD`: any calendar date stands for the week holding it, so a link can
    /// name any day; the answer is that week's Monday. Nil unless `text` is exactly a real
    /// `YYYY-MM-DD` date.
    public static func parseWeek(_ text: String) -> String? {
        WellbeingClock.parse(text).map { WellbeingClock.string(WellbeingClock.monday(of: $0)) }
    }

    /// The figures of the week holding the date `weekStart` (any day of it; see `parseWeek`),
    /// read in `timeZone`. With `now`, records after it are ignored and a week still in progress
    /// takes its streak as of `now`. Nil when `weekStart` is not a date.
    public static func compute(weekStart: String, timeZone: TimeZone, checkIns: [CheckInRecord], quizzes: [QuizRecord],
                               exercises: [ExerciseRecord], now: Date? = nil) -> WeeklyFigures? {
        guard let anyDay = WellbeingClock.parse(weekStart) else { return nil }
        let monday = WellbeingClock.monday(of: anyDay), sunday = monday + 6
        let cutoff = now ?? .distantFuture
        let checkIns = checkIns.filter { $0.at <= cutoff }
        let quizzes = quizzes.filter { $0.at <= cutoff }
        let exercises = exercises.filter { $0.at <= cutoff }
        func day(_ instant: Date) -> Int { WellbeingClock.day(instant, in: timeZone) }

        let week = checkIns.filter { (monday...sunday).contains(day($0.at)) }
        let previous = checkIns.filter { ((monday - 7)...(monday - 1)).contains(day($0.at)) }
        let urgeSum = week.map(\.clampedUrge).reduce(0, +)

        var triggerCounts: [WellbeingTrigger: Int] = [:]
        for checkIn in week {
            for trigger in Set(checkIn.triggers) { triggerCounts[trigger, default: 0] += 1 }
        }
        let top = triggerCounts
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(3)
            .map { TriggerCount(trigger: $0.key, count: $0.value) }

        let weekQuizzes = quizzes.filter { (monday...sunday).contains(day($0.at)) }
        let questions = weekQuizzes.map { max(0, $0.total) }.reduce(0, +)
        let right = weekQuizzes.map(\.clampedScore).reduce(0, +)
        let accuracy = questions > 0 ? (200 * right + questions) / (2 * questions) : nil

        let active = WellbeingStreaks.activeDays(checkIns: checkIns, exercises: exercises, in: timeZone)
        let streak: Int
        if let now, (monday...sunday).contains(day(now)) {
            streak = WellbeingStreaks.current(today: day(now), active: active)
        } else {
            streak = WellbeingStreaks.run(endingOn: sunday, active: active)
        }

        let days = (monday...sunday).map { number in
            let dayCheckIns = week.filter { day($0.at) == number }
            return DayUrge(day: WellbeingClock.string(number), checkIns: dayCheckIns.count,
                           urgeTotal: dayCheckIns.map(\.clampedUrge).reduce(0, +))
        }

        return WeeklyFigures(
            weekStart: WellbeingClock.string(monday),
            checkIns: week.count,
            averageMood: WellbeingClock.tenths(sum: week.map(\.clampedMood).reduce(0, +), count: week.count),
            averageUrge: WellbeingClock.tenths(sum: urgeSum, count: week.count),
            previousAverageUrge: WellbeingClock.tenths(sum: previous.map(\.clampedUrge).reduce(0, +), count: previous.count),
            highUrgeCount: week.filter { $0.clampedUrge >= WellbeingProgress.highUrge }.count,
            topTriggers: Array(top),
            exercises: exercises.filter { (monday...sunday).contains(day($0.at)) }.count,
            quizzes: weekQuizzes.count,
            quizAccuracy: accuracy,
            streakAtEnd: streak,
            daysWithCheckIn: days.filter { $0.checkIns > 0 }.count,
            days: days)
    }

    /// Every number the figures hold, as a reflection may state them: the counts, averages and
    /// percentages, the per-day counts and averages, and the year, month and day of the week's
    /// Monday and Sunday.
    var statedNumbers: [Double] {
        var values: [Double] = [checkIns, highUrgeCount, exercises, quizzes, streakAtEnd, daysWithCheckIn].map(Double.init)
        values += [averageMood, averageUrge, previousAverageUrge].compactMap { $0 }
        if let quizAccuracy { values.append(Double(quizAccuracy)) }
        values += topTriggers.map { Double($0.count) }
        for day in days {
            values.append(Double(day.checkIns))
            if let average = day.averageUrge { values.append(average) }
        }
        for text in [weekStart, weekEnd].compactMap({ $0 }) {
            if let number = WellbeingClock.parse(text) {
                let date = WellbeingClock.civil(number)
                values += [Double(date.year), Double(date.month), Double(date.day)]
            }
        }
        return values
    }
}

/// The written recap of a week, and the check that keeps a model-written one honest.
public enum ReflectionTemplate {
    /// Two short paragraphs stating the week's figures, then a gentle next step. Every number in
    /// the text is one of the figures (so `numbersAreGrounded` holds for it); thresholds and
    /// scales are described in words for that reason. It describes, never diagnoses.
    public static func recap(_ figures: WeeklyFigures) -> String {
        let week = "the week of \(dayMonth(figures.weekStart))"
        guard figures.checkIns > 0 else {
            var first = "No check-ins this week (\(week)), and that's okay."
            if let practice = practiceClause(figures) {
                first += " You still made time for \(practice)."
            }
            let second = "Whenever you're ready, a quick check-in is an easy way to pick things back up. There is nothing to catch up on."
            return first + "\n\n" + second
        }

        var first: [String] = []
        let times = figures.checkIns == 1 ? "once" : "\(figures.checkIns) times"
        let spread = figures.checkIns == 1 ? "" : figures.daysWithCheckIn == 1 ? ", all on 1 day" : ", on \(figures.daysWithCheckIn) different days"
        first.append("In \(week) you checked in \(times)\(spread).")
        if let mood = figures.averageMood, let urge = figures.averageUrge {
            var sentence = "Your mood averaged \(number(mood)) and your urge level averaged \(number(urge))"
            if let previous = figures.previousAverageUrge {
                if urge < previous {
                    sentence += ", down from \(number(previous)) the week before"
                } else if urge > previous {
                    sentence += ", up from \(number(previous)) the week before"
                } else {
                    sentence += ", the same as the week before"
                }
            }
            first.append(sentence + ".")
        }
        if figures.highUrgeCount > 0 {
            let noun = figures.highUrgeCount == 1 ? "check-in" : "check-ins"
            let pronoun = figures.highUrgeCount == 1 ? "it" : "them"
            first.append("\(figures.highUrgeCount) \(noun) noted a strong urge, and you took the time to record \(pronoun).")
        }
        if let most = figures.topTriggers.first?.count {
            // Triggers tied for the top are named together so none looks more frequent than it was.
            let leaders = figures.topTriggers.filter { $0.count == most }.map { label($0.trigger) }
            let times = most == 1 ? "once" : "\(most) times"
            var sentence = "\(capitalised(list(leaders))) came up most often (\(times)\(leaders.count > 1 ? " each" : ""))"
            let others = figures.topTriggers.filter { $0.count != most }.map { "\(label($0.trigger)) (\($0.count))" }
            if !others.isEmpty {
                sentence += ", followed by " + list(others)
            }
            first.append(sentence + ".")
        }

        var second: [String] = []
        if let practice = practiceClause(figures) {
            second.append("You also did \(practice).")
        }
        if figures.streakAtEnd > 0 {
            let noun = figures.streakAtEnd == 1 ? "day" : "days"
            second.append("By the end of the week your streak stood at \(figures.streakAtEnd) \(noun).")
        }
        if figures.exercises == 0 {
            second.append("A gentle next step: when an urge shows up this week, try a short guided exercise before deciding what to do.")
        } else if let lead = figures.topTriggers.first {
            second.append("A gentle next step: \(situation(lead.trigger)), pause for a slow breath and check in before acting on the urge.")
        } else {
            second.append("A gentle next step: keep checking in when you can. Even a quick note helps you notice patterns.")
        }
        return first.joined(separator: " ") + "\n\n" + second.joined(separator: " ")
    }

    /// Whether every number in `text` is one of the figures' numbers (see `recap`). Numbers are
    /// runs of digits with an optional decimal part (`3.4` or `3,4`), compared by value so `3.0`
    /// matches 3; number words from "zero" to "ninety" (except "one", too common as a pronoun)
    /// count too. Digits other than ASCII ones are refused outright, as they cannot be checked.
    public static func numbersAreGrounded(_ text: String, in figures: WeeklyFigures) -> Bool {
        guard let numbers = numbers(in: text) else { return false }
        let allowed = figures.statedNumbers
        return numbers.allSatisfy { value in allowed.contains { abs($0 - value) < 1e-9 } }
    }

    /// The numbers `text` states, or nil when it has digits that are not ASCII.
    static func numbers(in text: String) -> [Double]? {
        var found: [Double] = []
        let chars = Array(text)
        var index = 0
        while index < chars.count {
            let char = chars[index]
            guard char.isNumber else {
                index += 1
                continue
            }
            var digits = ""
            while index < chars.count, chars[index].isNumber {
                guard chars[index].isASCII else { return nil }
                digits.append(chars[index])
                index += 1
            }
            if index + 1 < chars.count, chars[index] == "." || chars[index] == ",", chars[index + 1].isASCII, chars[index + 1].isNumber {
                digits.append(".")
                index += 1
                while index < chars.count, chars[index].isNumber {
                    guard chars[index].isASCII else { return nil }
                    digits.append(chars[index])
                    index += 1
                }
            }
            guard let value = Double(digits) else { return nil }
            found.append(value)
        }
        var word = ""
        for char in text.lowercased() + " " {
            if char.isLetter {
                word.append(char)
            } else {
                if let value = numberWords[word] { found.append(value) }
                word = ""
            }
        }
        return found
    }

    static let numberWords: [String: Double] = [
        "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
        "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90,
    ]

    // MARK: Wording

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    /// "23 March" for `2026-03-23`.
    static func dayMonth(_ text: String) -> String {
        guard let number = WellbeingClock.parse(text) else { return text }
        let date = WellbeingClock.civil(number)
        return "\(date.day) \(monthNames[date.month - 1])"
    }

    /// Trailing zeros dropped (3.0 reads "3"), at most one decimal, always a `.`.
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let whole = tenths / 10, fraction = abs(tenths % 10)
        return fraction == 0 ? "\(whole)" : "\(tenths < 0 && whole == 0 ? "-" : "")\(whole).\(fraction)"
    }

    static func label(_ trigger: WellbeingTrigger) -> String {
        switch trigger {
        case .stress: return "stress"
        case .boredom: return "boredom"
        case .loneliness: return "loneliness"
        case .fatigue: return "tiredness"
        case .conflict: return "conflict"
        case .anxiety: return "anxiety"
        case .celebration: return "celebrations"
        case .screens: return "screen time"
        case .lateNight: return "late nights"
        case .hunger: return "hunger"
        }
    }

    /// When the trigger is around, phrased to start a clause: "when you feel stressed".
    static func situation(_ trigger: WellbeingTrigger) -> String {
        switch trigger {
        case .stress: return "when you feel stressed"
        case .boredom: return "when you feel bored"
        case .loneliness: return "when you feel lonely"
        case .fatigue: return "when you feel tired"
        case .conflict: return "after a disagreement"
        case .anxiety: return "when you feel anxious"
        case .celebration: return "when you are celebrating"
        case .screens: return "when you are scrolling"
        case .lateNight: return "late in the evening"
        case .hunger: return "when you are hungry"
        }
    }

    /// "a", "a and b", "a, b and c".
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    static func capitalised(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    /// "3 exercises and 2 quizzes, getting 89% of quiz answers right", or nil with neither.
    static func practiceClause(_ figures: WeeklyFigures) -> String? {
        var parts: [String] = []
        if figures.exercises > 0 {
            parts.append("\(figures.exercises) \(figures.exercises == 1 ? "exercise" : "exercises")")
        }
        if figures.quizzes > 0 {
            parts.append("\(figures.quizzes) \(figures.quizzes == 1 ? "quiz" : "quizzes")")
        }
        guard !parts.isEmpty else { return nil }
        var clause = parts.joined(separator: " and ")
        if figures.quizzes > 0, let accuracy = figures.quizAccuracy {
            clause += ", getting \(accuracy)% of quiz answers right"
        }
        return clause
    }
}
