import Foundation
import HearthDomain
import Testing

@Suite struct WeeklyReflectionTests {
    typealias March = ParisMarch2026

    static func figures(_ week: String, now: Date? = nil) -> WeeklyFigures? {
        WeeklyFigures.compute(weekStart: week, timeZone: March.zone, checkIns: March.checkIns, quizzes: March.quizzes,
                              exercises: March.exercises, now: now)
    }

    @Test func figuresOfTheWeekOverTheClockChange() throws {
        // 23–29 March, nine check-ins:
        // moods 7 + 7 + 8 + 7 + 6 + 6 + 6 + 5 + 7 = 59, / 9 = 6.56 → 6.6;
        // urges 3 + 2 + 4 + 1 + 5 + 2 + 3 + 6 + 1 = 27, / 9 = 3;
        // the week before (16–22): 2 + 1 + 3 + 4 + 6 = 16, / 5 = 3.2; no urge of 7 or more;
        // triggers: stress 2, late night 2, tiredness 1 (ties by name: late_night before stress);
        // one exercise (29th); quizzes 3/4 and 5/5: 8 / 9 = 88.9% → 89;
        // the Sunday is active, and so is every day back to the 21st: a streak of 9.
        let figures = try #require(Self.figures("2026-03-23"))
        #expect(figures.weekStart == "2026-03-23")
        #expect(figures.weekEnd == "2026-03-29")
        #expect(figures.checkIns == 9)
        #expect(figures.averageMood == 6.6)
        #expect(figures.averageUrge == 3)
        #expect(figures.previousAverageUrge == 3.2)
        #expect(figures.highUrgeCount == 0)
        #expect(figures.topTriggers == [.init(trigger: .lateNight, count: 2), .init(trigger: .stress, count: 2), .init(trigger: .fatigue, count: 1)])
        #expect(figures.exercises == 1)
        #expect(figures.quizzes == 2)
        #expect(figures.quizAccuracy == 89)
        #expect(figures.streakAtEnd == 9)
        #expect(figures.daysWithCheckIn == 7)
        #expect(figures.days.map(\.checkIns) == [1, 1, 1, 1, 1, 1, 3])
        #expect(figures.days.map(\.averageUrge) == [3, 2, 4, 1, 5, 2, 3.3])
    }

    @Test func figuresOfAHardWeek() throws {
        // 9–15 March, seven check-ins: moods 5 + 6 + 5 + 5 + 4 + 6 + 5 = 36, / 7 = 5.14 → 5.1;
        // urges 7 + 8 + 7 + 9 + 7 + 5 + 8 = 51, / 7 = 7.29 → 7.3, six of them 7 or more;
        // the week before: 7 + 9 + 7 + 8 + 3 + 7 + 2 + 6 = 49, / 8 = 6.125 → 6.1;
        // stress 3, then anxiety, boredom, late night and screens once each (top three by name);
        // six exercises, the 00:20 on Sunday the 15th included; quizzes 3/3, 1/4, 2/3: 6 / 10 = 60%;
        // Sunday the 15th ends the run that began on the 1st: 15.
        let figures = try #require(Self.figures("2026-03-12"))
        #expect(figures.weekStart == "2026-03-09")
        #expect(figures.checkIns == 7)
        #expect(figures.averageMood == 5.1)
        #expect(figures.averageUrge == 7.3)
        #expect(figures.previousAverageUrge == 6.1)
        #expect(figures.highUrgeCount == 6)
        #expect(figures.topTriggers == [.init(trigger: .stress, count: 3), .init(trigger: .anxiety, count: 1), .init(trigger: .boredom, count: 1)])
        #expect(figures.exercises == 6)
        #expect(figures.quizzes == 3)
        #expect(figures.quizAccuracy == 60)
        #expect(figures.streakAtEnd == 15)
        #expect(figures.daysWithCheckIn == 6)
    }

    @Test func aWeekInProgressTakesItsStreakAsOfNow() throws {
        // Wednesday 25 March 12:00: 23–25 have check-ins, the run goes back to the 21st: 5.
        let figures = try #require(Self.figures("2026-03-23", now: March.at(25, 12, 0)))
        #expect(figures.checkIns == 3)
        #expect(figures.streakAtEnd == 5)
        #expect(figures.quizzes == 0)
        #expect(figures.quizAccuracy == nil)
    }

    @Test func anEmptyWeek() throws {
        // 6–12 April: nothing. The week before holds only 30 March's urge of 2.
        let figures = try #require(Self.figures("2026-04-08"))
        #expect(figures.weekStart == "2026-04-06")
        #expect(figures.checkIns == 0)
        #expect(figures.averageMood == nil)
        #expect(figures.averageUrge == nil)
        #expect(figures.previousAverageUrge == 2)
        #expect(figures.topTriggers.isEmpty)
        #expect(figures.streakAtEnd == 0)
        #expect(figures.days.count == 7)
        let recap = ReflectionTemplate.recap(figures)
        #expect(recap.hasPrefix("No check-ins this week"))
        #expect(Self.numberTokens(recap).allSatisfy { Self.allowedNumbers(figures).contains($0) })
        #expect(ReflectionTemplate.numbersAreGrounded(recap, in: figures))
    }

    @Test func weekParsing() {
        #expect(WeeklyFigures.parseWeek("2026-03-23") == "2026-03-23")
        #expect(WeeklyFigures.parseWeek("2026-03-25") == "2026-03-23")
        #expect(WeeklyFigures.parseWeek("2026-03-29") == "2026-03-23")
        #expect(WeeklyFigures.parseWeek("2026-03-30") == "2026-03-30")
        #expect(WeeklyFigures.parseWeek("2026-01-01") == "2025-12-29")
        #expect(WeeklyFigures.parseWeek("2024-02-29") == "2024-02-26")
        for bad in ["", "2026-02-29", "2026-13-01", "2026-3-2", "2026/03/02", "20260302", " 2026-03-02", "2026-03-02T00:00", "２０２６-03-02"] {
            #expect(WeeklyFigures.parseWeek(bad) == nil, "\(bad)")
        }
        #expect(WeeklyFigures.compute(weekStart: "next week", timeZone: March.zone, checkIns: [], quizzes: [], exercises: []) == nil)
    }

    @Test func weekContainingAnInstantIsReadInTheZone() {
        // 30 March 00:30 in Paris is 29 March 22:30Z: a Monday in Paris, still Sunday in UTC.
        let instant = March.at(30, 0, 30)
        #expect(WeeklyFigures.week(containing: instant, timeZone: March.zone) == "2026-03-30")
        #expect(WeeklyFigures.week(containing: instant, timeZone: TimeZone(identifier: "UTC")!) == "2026-03-23")
    }

    @Test func everyNumberInTheRecapIsAFigure() throws {
        for week in ["2026-03-23", "2026-03-09", "2026-03-02", "2026-03-16", "2026-03-30"] {
            let figures = try #require(Self.figures(week))
            let recap = ReflectionTemplate.recap(figures)
            let allowed = Self.allowedNumbers(figures)
            for token in Self.numberTokens(recap) {
                #expect(allowed.contains(token), "\(week): \(token) in \(recap)")
            }
            #expect(ReflectionTemplate.numbersAreGrounded(recap, in: figures), "\(recap)")
            let paragraphs = recap.components(separatedBy: "\n\n")
            #expect(paragraphs.count == 2)
            #expect(recap.contains("A gentle next step"))
            for word in ["addict", "disorder", "relapse", "diagnos", "compulsive", "symptom", "patholog"] {
                #expect(!recap.lowercased().contains(word), "\(word)")
            }
        }
    }

    @Test func recapOfTheWeekOverTheClockChange() throws {
        let recap = ReflectionTemplate.recap(try #require(Self.figures("2026-03-23")))
        #expect(recap == """
            In the week of 23 March you checked in 9 times, on 7 different days. Your mood averaged 6.6 and your urge level \
            averaged 3, down from 3.2 the week before. Late nights and stress came up most often (2 times each), followed by \
            tiredness (1).

            You also did 1 exercise and 2 quizzes, getting 89% of quiz answers right. By the end of the week your streak stood \
            at 9 days. A gentle next step: late in the evening, pause for a slow breath and check in before acting on the urge.
            """)
    }

    @Test func groundingRefusesInventedNumbers() throws {
        let figures = try #require(Self.figures("2026-03-23"))
        #expect(ReflectionTemplate.numbersAreGrounded("You checked in 9 times and your urge averaged 3.0, down from 3,2.", in: figures))
        #expect(ReflectionTemplate.numbersAreGrounded("Seven days with a check-in, 89% right.", in: figures))
        #expect(ReflectionTemplate.numbersAreGrounded("No numbers at all, one step at a time.", in: figures))
        #expect(!ReflectionTemplate.numbersAreGrounded("You checked in 12 times.", in: figures))
        #expect(!ReflectionTemplate.numbersAreGrounded("Your urge fell by 0.2 points.", in: figures))
        #expect(!ReflectionTemplate.numbersAreGrounded("Your urge averaged 3.1.", in: figures))
        #expect(!ReflectionTemplate.numbersAreGrounded("You checked in twelve times.", in: figures))
        #expect(!ReflectionTemplate.numbersAreGrounded("You checked in ٩ times.", in: figures))
    }

    @Test func figuresEncodeWithSnakeCaseKeys() throws {
        let figures = try #require(Self.figures("2026-03-23"))
        let data = try JSONEncoder().encode(figures)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["week_start", "check_ins", "average_mood", "average_urge", "previous_average_urge", "high_urge_count", "top_triggers",
                    "exercises", "quizzes", "quiz_accuracy", "streak_at_end", "days_with_check_in", "days"] {
            #expect(object[key] != nil, "\(key)")
        }
        #expect(try JSONDecoder().decode(WeeklyFigures.self, from: data) == figures)
    }

    // MARK: Helpers

    /// Runs of ASCII digits with an optional decimal part, as numbers.
    static func numberTokens(_ text: String) -> [Double] {
        var tokens: [Double] = []
        var current = ""
        for char in text + " " {
            if char.isASCII, char.isNumber {
                current.append(char)
            } else if char == ".", !current.isEmpty, !current.contains(".") {
                current.append(char)
            } else {
                if current.hasSuffix(".") { current.removeLast() }
                if let value = Double(current) { tokens.append(value) }
                current = ""
            }
        }
        return tokens
    }

    /// Every value the figures hold, listed field by field.
    static func allowedNumbers(_ figures: WeeklyFigures) -> Set<Double> {
        var values: Set<Double> = [Double(figures.checkIns), Double(figures.highUrgeCount), Double(figures.exercises),
                                   Double(figures.quizzes), Double(figures.streakAtEnd), Double(figures.daysWithCheckIn)]
        for value in [figures.averageMood, figures.averageUrge, figures.previousAverageUrge] {
            if let value { values.insert(value) }
        }
        if let accuracy = figures.quizAccuracy { values.insert(Double(accuracy)) }
        figures.topTriggers.forEach { values.insert(Double($0.count)) }
        for day in figures.days {
            values.insert(Double(day.checkIns))
            if let average = day.averageUrge { values.insert(average) }
        }
        for date in [figures.weekStart, figures.weekEnd ?? ""] {
            date.split(separator: "-").compactMap { Double($0) }.forEach { values.insert($0) }
        }
        return values
    }
}
