import Foundation
import HearthDomain
import Testing

/// A hand-built month of wellbeing events: March 2026 in Europe/Paris, with gaps.
///
/// Paris is UTC+1 until the clocks go forward on Sunday 29 March (02:00 becomes 03:00), UTC+2
/// after. Active days (a check-in or an exercise): 1–15 March (the 15th only through an exercise
/// at 00:20 that followed a check-in late on the 14th), 17–19, 21–30. No events on the 16th, the
/// 20th or the 31st.
enum ParisMarch2026 {
    static let zone = TimeZone(identifier: "Europe/Paris")!

    /// 2026-03-01T00:00:00Z.
    static let marchFirstUTC: TimeInterval = 1_772_323_200

    /// Paris wall-clock time on `day` of March 2026 (32 is 1 April, and so on). 02:00–02:59 on the
    /// 29th does not exist and is never used.
    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date {
        let summer = day > 29 || (day == 29 && hour >= 3)
        let offset = summer ? 7200 : 3600
        return Date(timeIntervalSince1970: marchFirstUTC + TimeInterval((day - 1) * 86400 + hour * 3600 + minute * 60 - offset))
    }

    static func checkIn(_ day: Int, _ hour: Int, _ minute: Int, mood: Int, urge: Int, _ triggers: [WellbeingTrigger] = [],
                        exercise: Bool = false) -> CheckInRecord {
        CheckInRecord(at: at(day, hour, minute), mood: mood, urgeLevel: urge, triggers: triggers, exerciseCompleted: exercise)
    }

    static func exercise(_ day: Int, _ hour: Int, _ minute: Int, _ kind: String = ExerciseRecord.audio) -> ExerciseRecord {
        ExerciseRecord(at: at(day, hour, minute), kind: kind)
    }

    static func quiz(_ day: Int, _ hour: Int, _ minute: Int, _ score: Int, _ total: Int) -> QuizRecord {
        QuizRecord(at: at(day, hour, minute), domain: "urges", score: score, total: total)
    }

    static let checkIns: [CheckInRecord] = [
        // Week of Monday 23 February (only its Sunday is in March).
        checkIn(1, 9, 0, mood: 5, urge: 8, [.stress]),
        // Week of 2 March.
        checkIn(2, 8, 0, mood: 6, urge: 7, [.boredom]),
        checkIn(3, 21, 0, mood: 4, urge: 9, [.lateNight]),
        checkIn(4, 12, 0, mood: 5, urge: 7, [.stress], exercise: true),
        checkIn(5, 7, 45, mood: 5, urge: 8, [.stress, .fatigue]),
        checkIn(5, 19, 0, mood: 6, urge: 3),
        checkIn(6, 10, 0, mood: 6, urge: 7, [.conflict]),
        checkIn(7, 11, 0, mood: 7, urge: 2),
        checkIn(8, 9, 0, mood: 6, urge: 6, [.celebration]),
        // Week of 9 March.
        checkIn(9, 8, 30, mood: 5, urge: 7, [.stress]),
        checkIn(10, 13, 0, mood: 6, urge: 8, [.anxiety]),
        checkIn(11, 18, 0, mood: 5, urge: 7, [.stress]),
        checkIn(11, 18, 10, mood: 5, urge: 9, [.stress]),
        checkIn(12, 22, 30, mood: 4, urge: 7, [.lateNight, .screens]),
        checkIn(13, 7, 0, mood: 6, urge: 5),
        checkIn(14, 23, 30, mood: 5, urge: 8, [.boredom]),
        // Week of 16 March.
        checkIn(17, 9, 0, mood: 6, urge: 2),
        checkIn(18, 9, 0, mood: 7, urge: 1),
        checkIn(19, 9, 0, mood: 6, urge: 3),
        checkIn(21, 10, 0, mood: 6, urge: 4, [.boredom]),
        checkIn(22, 10, 0, mood: 7, urge: 6, [.celebration]),
        // Week of 23 March, over the DST change.
        checkIn(23, 8, 0, mood: 7, urge: 3, [.stress]),
        checkIn(24, 8, 0, mood: 7, urge: 2),
        checkIn(25, 8, 0, mood: 8, urge: 4, [.stress]),
        checkIn(26, 8, 0, mood: 7, urge: 1),
        checkIn(27, 8, 0, mood: 6, urge: 5, [.fatigue]),
        checkIn(28, 23, 59, mood: 6, urge: 2),
        checkIn(29, 0, 30, mood: 6, urge: 3, [.lateNight]),  // 23:30Z on the 28th: the 29th only in Paris.
        checkIn(29, 3, 30, mood: 5, urge: 6, [.lateNight]),  // Just after the gap.
        checkIn(29, 23, 30, mood: 7, urge: 1),
        // Week of 30 March.
        checkIn(30, 7, 0, mood: 7, urge: 2),
    ]

    static let exercises: [ExerciseRecord] = [
        exercise(1, 9, 40),
        exercise(2, 9, 0),
        exercise(3, 22, 1, ExerciseRecord.scenario),
        exercise(5, 7, 30),
        exercise(6, 10, 30, ExerciseRecord.scenario),
        exercise(7, 8, 15),
        exercise(9, 9, 15),
        exercise(10, 13, 20, ExerciseRecord.scenario),
        exercise(10, 13, 50),
        exercise(11, 18, 40),
        exercise(12, 23, 10),
        exercise(15, 0, 20),
        exercise(29, 10, 0),
    ]

    static let quizzes: [QuizRecord] = [
        quiz(2, 20, 0, 2, 2),
        quiz(4, 18, 0, 4, 5),
        quiz(6, 21, 0, 5, 5),
        quiz(8, 10, 0, 3, 5),
        quiz(9, 19, 0, 3, 3),
        quiz(11, 20, 0, 1, 4),
        quiz(13, 8, 0, 2, 3),
        quiz(18, 12, 0, 4, 4),
        quiz(22, 11, 0, 2, 5),
        quiz(25, 20, 0, 3, 4),
        quiz(27, 20, 0, 5, 5),
    ]

    static func progress(now: Date) -> WellbeingProgress {
        // Shuffled order in, to show nothing depends on it.
        WellbeingProgress(checkIns: checkIns.reversed(), quizzes: quizzes.reversed(), exercises: exercises.reversed(), timeZone: zone, now: now)
    }
}

@Suite struct WellbeingProgressTests {
    typealias March = ParisMarch2026

    @Test func theFixtureClockIsParisTime() {
        // 1 March 09:00 in Paris (UTC+1) is 08:00Z; 30 March 07:00 (UTC+2) is 05:00Z.
        #expect(March.at(1, 9, 0) == Date(timeIntervalSince1970: 1_772_323_200 + 8 * 3600))
        #expect(March.at(30, 7, 0) == Date(timeIntervalSince1970: 1_772_323_200 + 29 * 86400 + 5 * 3600))
    }

    @Test func streaksAtTheEndOfTheMonth() {
        // 31 March has nothing yet, so the streak ends on the 30th: the run 21–30 is 10 days.
        // The longest run is 1–15 March: 15 days.
        let progress = March.progress(now: March.at(31, 12, 0))
        #expect(progress.today == "2026-03-31")
        #expect(progress.streak == 10)
        #expect(progress.longestStreak == 15)
    }

    @Test func streakIgnoresEventsAfterNowAndForgivesOnlyToday() {
        // 30 March 06:00: its 07:00 check-in has not happened, so the run ends on the 29th: 21–29, 9 days.
        #expect(March.progress(now: March.at(30, 6, 0)).streak == 9)
        // 1 April: neither it nor 31 March is active.
        #expect(March.progress(now: March.at(32, 9, 0)).streak == 0)
        // 15 March: active through the 00:20 exercise, so the run 1–15 counts today: 15.
        #expect(March.progress(now: March.at(15, 12, 0)).streak == 15)
        // 16 March: nothing today, the run ending yesterday still stands.
        #expect(March.progress(now: March.at(16, 12, 0)).streak == 15)
        // 17 March: the 16th broke it; today's check-in starts a new run of 1.
        #expect(March.progress(now: March.at(17, 12, 0)).streak == 1)
        #expect(March.progress(now: March.at(17, 12, 0)).longestStreak == 15)
    }

    @Test func badgesAreEarnedAtTheEventsThatEarnedThem() {
        // - first-checkin: 1 March 09:00.
        // - five-exercises: exercises 1st 09:40, 2nd 09:00, 3rd 22:01, 5th 07:30, then 6 March 10:30.
        // - perfect-quiz: 2 March's 2/2 has fewer than three questions; 6 March 21:00 is 5/5.
        // - first-week: 1–7 March are active; the 7th's first event is the 08:15 exercise.
        // - urge-surfer, check-ins with urge 7 or more and their first exercise within 60 minutes:
        //   1st 09:00 → 09:40 (1); 2nd 08:00 → 09:00, exactly 60 minutes (2); 3rd 21:00 → 22:01 is
        //   61 minutes (no); 4th 12:00 with its own exercise (3); 5th 07:45, exercise before it (no);
        //   6th 10:00 → 10:30 (4); 9th 08:30 → 09:15 (5); 10th 13:00 → 13:20 (6); 11th 18:00 and
        //   18:10 → 18:40 (7, 8); 12th 22:30 → 23:10 (9); 14th 23:30 → 15th 00:20 (10).
        // - ten-quizzes: the tenth quiz is 25 March 20:00.
        // - calm-week: weeks of 2 and 9 March never average 3 or less; the week of 16 March has
        //   five check-ins averaging 16 / 5 = 3.2; the week of 23 March reaches five check-ins
        //   on the 27th at 08:00 with 3 + 2 + 4 + 1 + 5 = 15, an average of 3.
        // - thirty-day-streak: never (the longest run is 15).
        let progress = March.progress(now: March.at(31, 12, 0))
        let expected: [(String, Date)] = [
            ("first-checkin", March.at(1, 9, 0)),
            ("five-exercises", March.at(6, 10, 30)),
            ("perfect-quiz", March.at(6, 21, 0)),
            ("first-week", March.at(7, 8, 15)),
            ("urge-surfer", March.at(15, 0, 20)),
            ("ten-quizzes", March.at(25, 20, 0)),
            ("calm-week", March.at(27, 8, 0)),
        ]
        #expect(progress.badges.map(\.id) == expected.map(\.0))
        #expect(progress.badges.map(\.earnedAt) == expected.map(\.1))
        #expect(progress.remainingRules.map(\.id) == ["thirty-day-streak"])
        #expect(progress.badges.first?.title == "First check-in")
    }

    @Test func badgesAreAsOfNow() {
        // 14 March 23:59: the tenth surfed urge needs the 00:20 exercise; the quizzes number 7.
        let progress = March.progress(now: March.at(14, 23, 59))
        #expect(progress.badges.map(\.id) == ["first-checkin", "five-exercises", "perfect-quiz", "first-week"])
        #expect(Set(progress.remainingRules.map(\.id)) == ["thirty-day-streak", "ten-quizzes", "urge-surfer", "calm-week"])
    }

    @Test func rulesListEveryBadgeOnce() {
        let ids = WellbeingProgress.rules.map(\.id)
        #expect(ids == ["first-checkin", "first-week", "thirty-day-streak", "ten-quizzes", "perfect-quiz", "five-exercises",
                        "urge-surfer", "calm-week"])
        #expect(WellbeingProgress.rules.allSatisfy { !$0.title.isEmpty && !$0.criterion.isEmpty })
    }

    @Test func thirtyDayStreakAndOneExerciseSurfingEveryCheckInItFollows() {
        // Thirty days from 1 March with one check-in at 20:00: earned on 30 March at 20:00 (UTC+2).
        let checkIns = (1...30).map { March.checkIn($0, 20, 0, mood: 6, urge: 4) }
        let progress = WellbeingProgress(checkIns: checkIns, quizzes: [], exercises: [], timeZone: March.zone, now: March.at(31, 0, 0))
        #expect(progress.badges.first { $0.id == "thirty-day-streak" }?.earnedAt == March.at(30, 20, 0))
        #expect(progress.badges.first { $0.id == "first-week" }?.earnedAt == March.at(7, 20, 0))
        #expect(progress.streak == 30)

        // Ten strong urges in ten minutes, one exercise 50 minutes after the first: all ten surfed at it.
        let urges = (0..<10).map { March.checkIn(2, 9, $0, mood: 4, urge: 7) }
        let surfing = WellbeingProgress(checkIns: urges, quizzes: [], exercises: [March.exercise(2, 9, 50)], timeZone: March.zone,
                                        now: March.at(3, 0, 0))
        #expect(surfing.badges.first { $0.id == "urge-surfer" }?.earnedAt == March.at(2, 9, 50))
    }

    @Test func cravingTrendOverTheLastFortnight() {
        // 18–31 March, one entry per Paris day. The 28th's 23:59 stays on the 28th; the 29th holds
        // 00:30 (23:30Z on the 28th), 03:30 and 23:30: (3 + 6 + 1) / 3 = 3.33 → 3.3.
        let trend = March.progress(now: March.at(31, 12, 0)).cravingTrend(days: 14)
        let expected: [(String, Double?, Int)] = [
            ("2026-03-18", 1, 1), ("2026-03-19", 3, 1), ("2026-03-20", nil, 0), ("2026-03-21", 4, 1), ("2026-03-22", 6, 1),
            ("2026-03-23", 3, 1), ("2026-03-24", 2, 1), ("2026-03-25", 4, 1), ("2026-03-26", 1, 1), ("2026-03-27", 5, 1),
            ("2026-03-28", 2, 1), ("2026-03-29", 3.3, 3), ("2026-03-30", 2, 1), ("2026-03-31", nil, 0),
        ]
        #expect(trend.map(\.day) == expected.map(\.0))
        #expect(trend.map(\.averageUrge) == expected.map(\.1))
        #expect(trend.map(\.checkIns) == expected.map(\.2))
        #expect(trend[11].urgeTotal == 10)
    }

    @Test func cravingTrendRoundsHalfUpAndHandlesEmptyRanges() {
        // 1 + 2 + 3 + 3 = 9 over 4 is 2.25, written 2.3.
        let checkIns = [1, 2, 3, 3].enumerated().map { March.checkIn(10, 9, $0.offset, mood: 5, urge: $0.element) }
        let progress = WellbeingProgress(checkIns: checkIns, quizzes: [], exercises: [], timeZone: March.zone, now: March.at(10, 12, 0))
        #expect(progress.cravingTrend(days: 1) == [DayUrge(day: "2026-03-10", checkIns: 4, urgeTotal: 9)])
        #expect(progress.cravingTrend(days: 1).first?.averageUrge == 2.3)
        #expect(progress.cravingTrend(days: 0).isEmpty)
        #expect(progress.cravingTrend(days: -3).isEmpty)
        #expect(progress.cravingTrend(days: 1000).count == 366)
    }

    @Test func quizHistoryAndExercisesDone() {
        let progress = March.progress(now: March.at(31, 12, 0))
        #expect(progress.quizHistory(limit: 3).map(\.at) == [March.at(27, 20, 0), March.at(25, 20, 0), March.at(22, 11, 0)])
        #expect(progress.quizHistory().count == 10)
        // 25–31 March: only the 29th's exercise. From the 15th: also the 00:20 one.
        #expect(progress.exercisesDone(days: 7).map(\.at) == [March.at(29, 10, 0)])
        #expect(progress.exercisesDone(days: 17).map(\.at) == [March.at(29, 10, 0), March.at(15, 0, 20)])
    }

    @Test func upcomingTasksFollowTheCadence() {
        func ids(_ now: Date, _ cadence: WellbeingReminderCadence) -> [String] {
            March.progress(now: now).upcomingTasks(cadence: cadence).map(\.id)
        }
        // Tuesday 31 March: no check-in today; the 29th's exercise is within three days.
        #expect(ids(March.at(31, 12, 0), .daily) == ["check-in"])
        // Wednesday 1 April: no exercise on 30 March, 31 March or today.
        #expect(ids(March.at(32, 9, 0), .daily) == ["check-in", "exercise"])
        // Monday 30 March 20:00: checked in at 07:00; the reflection is on the week of the 23rd.
        let monday = March.progress(now: March.at(30, 20, 0)).upcomingTasks(cadence: .daily)
        #expect(monday == [WellbeingTask(id: "weekly-reflection", title: "Weekly reflection ready", weekStart: "2026-03-23")])
        // Saturday 28 March 08:00: no check-in prompt on weekends; no exercise on the 26th–28th.
        #expect(ids(March.at(28, 8, 0), .weekdays) == ["exercise"])
        #expect(ids(March.at(28, 8, 0), .daily) == ["check-in", "exercise"])
        // Weekly: the week of 30 March already has a check-in.
        #expect(ids(March.at(31, 12, 0), .weekly) == [])
        // Monday 23 March 07:00, before its 08:00 check-in: nothing this week, no exercise 21st–23rd.
        #expect(ids(March.at(23, 7, 0), .weekly) == ["check-in", "exercise", "weekly-reflection"])
        #expect(ids(March.at(23, 7, 0), .off) == ["weekly-reflection"])
        // A check-in's own exercise counts as practice: 4 March's, seen on the 6th at 08:00.
        let flagged = WellbeingProgress(checkIns: [March.checkIn(4, 12, 0, mood: 5, urge: 7, exercise: true)], quizzes: [], exercises: [],
                                        timeZone: March.zone, now: March.at(6, 8, 0))
        #expect(flagged.upcomingTasks(cadence: .daily).map(\.id) == ["check-in"])
    }

    @Test func recordsRoundTripThroughJSONWithSnakeCaseKeys() throws {
        let record = March.checkIn(3, 21, 0, mood: 4, urge: 9, [.lateNight], exercise: true)
        let data = try JSONEncoder().encode(record)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["urge_level"] as? Int == 9)
        #expect(object["exercise_completed"] as? Bool == true)
        #expect(object["triggers"] as? [String] == ["late_night"])
        #expect(try JSONDecoder().decode(CheckInRecord.self, from: data) == record)
        let fromWords = CheckInRecord(at: March.at(3, 21, 0), mood: 4, urgeLevel: 9, triggerContext: "Rough deadline, can't sleep")
        #expect(fromWords.triggers == [.stress, .lateNight])
    }
}
