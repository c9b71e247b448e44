import Foundation
import HearthDomain
import HearthEvents
import Logging
import PostgresNIO

/// A stored check-in, as its owner reads it.
struct StoredCheckIn: Sendable {
    var checkinId: UUID
    var at: Date
    var entry: WellbeingCheckInEntry
    var loggedAt: Date
    var editedAt: Date?

    var json: JSONValue {
        .object([
            "checkin_id": .string(checkinId.uuidString.lowercased()), "timestamp": .string(Timestamp.format(at)),
            "mood": .number(Double(entry.mood)), "urge_level": .number(Double(entry.urgeLevel)),
            "trigger_context": entry.triggerContext.map(JSONValue.string) ?? .null, "note": entry.note.map(JSONValue.string) ?? .null,
            "exercise_completed": .bool(entry.exerciseCompleted), "triggers": .array(entry.triggers.map(JSONValue.string)),
            "logged_at": .string(Timestamp.format(loggedAt)), "edited_at": editedAt.map { .string(Timestamp.format($0)) } ?? .null,
        ])
    }

    var record: CheckInRecord {
        CheckInRecord(
            id: checkinId, at: at, mood: entry.mood, urgeLevel: entry.urgeLevel, triggers: entry.triggers.compactMap(WellbeingTrigger.init(rawValue:)),
            exerciseCompleted: entry.exerciseCompleted)
    }
}

/// One question of a quiz as stored: the question (answer included) and, once answered, the choice.
struct StoredQuizQuestion: Sendable {
    var question: QuizQuestion
    var writtenBy: String
    var chosen: Int?
}

struct StoredQuiz: Sendable {
    var quizId: UUID
    var domain: String
    var startedAt: Date
    var questions: [StoredQuizQuestion]
}

struct StoredExercise: Sendable {
    var exerciseId: UUID
    var kind: String
    var title: String?
    var script: AudioScript?
    var scriptHash: String?
    var durationSec: Double?
    var writtenBy: String?
    var createdAt: Date
    var completedAt: Date?
}

struct StoredSimulation: Sendable {
    var simulationId: UUID
    var scenarioId: String
    /// The tree a model wrote for this simulation; nil for an authored scenario.
    var written: PracticeScenario?
    var writtenBy: String
    var choices: [String]
    var startedAt: Date
}

struct StoredFeedTip: Sendable {
    var feedId: UUID
    var tipId: String
    var reason: String
    var at: Date
}

/// Reads of the wellbeing tables, always for one user: every query takes the owner's id, so a
/// row of anyone else's is never found (a 404, not a 403, says nothing about its existence).
struct WellbeingReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    private static let decoder = JSONDecoder()

    func settings(of user: UUID) async throws -> WellbeingSettingsValue? {
        let rows = try await client.query(
            """
            SELECT window_start, window_end, time_zone, badge_only, no_autoplay, interests, reminder_cadence FROM wellbeing_settings WHERE user_id = \(user)
            """, logger: logger)
        for try await row in rows.decode((String, String, String, Bool, Bool, [String], String).self) {
            return WellbeingSettingsValue(
                windowStart: row.0, windowEnd: row.1, timeZone: row.2, badgeOnly: row.3, noAutoplay: row.4, interests: row.5, reminderCadence: row.6)
        }
        return nil
    }

    /// Newest first, `at` and id breaking ties; `before` continues after a page's last check-in.
    func checkIns(of user: UUID, from: Date?, to: Date?, before: (Date, UUID)?, limit: Int) async throws -> [StoredCheckIn] {
        let rows = try await client.query(
            """
            SELECT checkin_id, at, mood, urge_level, trigger_context, note, exercise_completed, triggers, crisis, logged_at, edited_at
            FROM wellbeing_checkins
            WHERE user_id = \(user) AND (\(from)::timestamptz IS NULL OR at >= \(from)) AND (\(to)::timestamptz IS NULL OR at < \(to))
              AND (\(before?.0)::timestamptz IS NULL OR (at, checkin_id) < (\(before?.0), \(before?.1)))
            ORDER BY at DESC, checkin_id DESC LIMIT \(limit)
            """, logger: logger)
        var result: [StoredCheckIn] = []
        for try await row in rows.decode((UUID, Date, Int, Int, String?, String?, Bool, [String], Bool, Date, Date?).self) {
            result.append(StoredCheckIn(
                checkinId: row.0, at: row.1,
                entry: WellbeingCheckInEntry(
                    mood: row.2, urgeLevel: row.3, triggerContext: row.4, note: row.5, exerciseCompleted: row.6, triggers: row.7, crisis: row.8),
                loggedAt: row.9, editedAt: row.10))
        }
        return result
    }

    /// How often each trigger was named in the user's check-ins of the last `days` days (a crisis
    /// check-in names none: nothing is built on it).
    func triggerCounts(of user: UUID, days: Int) async throws -> [WellbeingTrigger: Int] {
        let recent = try await checkIns(of: user, from: Date().addingTimeInterval(-Double(days) * 86_400), to: nil, before: nil, limit: 500)
        var counts: [WellbeingTrigger: Int] = [:]
        for checkIn in recent where !checkIn.entry.crisis {
            for trigger in checkIn.entry.triggers.compactMap(WellbeingTrigger.init(rawValue:)) { counts[trigger, default: 0] += 1 }
        }
        return counts
    }

    func checkIn(_ id: UUID, of user: UUID) async throws -> StoredCheckIn? {
        let rows = try await client.query(
            """
            SELECT checkin_id, at, mood, urge_level, trigger_context, note, exercise_completed, triggers, crisis, logged_at, edited_at
            FROM wellbeing_checkins WHERE user_id = \(user) AND checkin_id = \(id)
            """, logger: logger)
        for try await row in rows.decode((UUID, Date, Int, Int, String?, String?, Bool, [String], Bool, Date, Date?).self) {
            return StoredCheckIn(
                checkinId: row.0, at: row.1,
                entry: WellbeingCheckInEntry(
                    mood: row.2, urgeLevel: row.3, triggerContext: row.4, note: row.5, exerciseCompleted: row.6, triggers: row.7, crisis: row.8),
                loggedAt: row.9, editedAt: row.10)
        }
        return nil
    }

    /// Everything the progress rules read: check-ins (a crisis check-in earns nothing and is
    /// left out), quizzes with an answer, exercises completed.
    func activity(of user: UUID) async throws -> (checkIns: [CheckInRecord], quizzes: [QuizRecord], exercises: [ExerciseRecord]) {
        let checkIns = try await self.checkIns(of: user, from: nil, to: nil, before: nil, limit: 100_000).filter { !$0.entry.crisis }.map(\.record)
        var quizzes: [QuizRecord] = []
        let quizRows = try await client.query(
            """
            SELECT q.quiz_id, q.domain, max(a.answered_at), count(*) FILTER (WHERE a.correct), count(*)
            FROM wellbeing_quizzes q JOIN wellbeing_quiz_questions a ON a.quiz_id = q.quiz_id
            WHERE q.user_id = \(user) AND a.answered_at IS NOT NULL
            GROUP BY q.quiz_id, q.domain
            """, logger: logger)
        for try await row in quizRows.decode((UUID, String, Date, Int, Int).self) {
            quizzes.append(QuizRecord(id: row.0, at: row.2, domain: row.1, score: row.3, total: row.4))
        }
        var exercises: [ExerciseRecord] = []
        let exerciseRows = try await client.query(
            "SELECT exercise_id, completed_at, kind FROM wellbeing_exercises WHERE user_id = \(user) AND completed_at IS NOT NULL", logger: logger)
        for try await row in exerciseRows.decode((UUID, Date, String).self) {
            exercises.append(ExerciseRecord(id: row.0, at: row.1, kind: row.2))
        }
        return (checkIns.sorted { $0.at < $1.at }, quizzes.sorted { $0.at < $1.at }, exercises.sorted { $0.at < $1.at })
    }

    func quiz(_ id: UUID, of user: UUID) async throws -> StoredQuiz? {
        var quiz: StoredQuiz?
        let rows = try await client.query("SELECT quiz_id, domain, started_at FROM wellbeing_quizzes WHERE quiz_id = \(id) AND user_id = \(user)", logger: logger)
        for try await row in rows.decode((UUID, String, Date).self) { quiz = StoredQuiz(quizId: row.0, domain: row.1, startedAt: row.2, questions: []) }
        guard var found = quiz else { return nil }
        let questions = try await client.query(
            """
            SELECT question::text, written_by, chosen FROM wellbeing_quiz_questions
            WHERE quiz_id = \(id) AND user_id = \(user) ORDER BY position
            """, logger: logger)
        for try await row in questions.decode((String, String, Int?).self) {
            let question = try Self.decoder.decode(QuizQuestion.self, from: Data(row.0.utf8))
            found.questions.append(StoredQuizQuestion(question: question, writtenBy: row.1, chosen: row.2))
        }
        return found
    }

    /// Ids of every question the user was asked, and when their last quiz of each domain began.
    func quizHistory(of user: UUID) async throws -> (asked: Set<String>, lastByDomain: [String: Date]) {
        var asked = Set<String>()
        let rows = try await client.query("SELECT question_id FROM wellbeing_quiz_questions WHERE user_id = \(user)", logger: logger)
        for try await id in rows.decode(String.self) { asked.insert(id) }
        var last: [String: Date] = [:]
        let domains = try await client.query("SELECT domain, max(started_at) FROM wellbeing_quizzes WHERE user_id = \(user) GROUP BY domain", logger: logger)
        for try await (domain, at) in domains.decode((String, Date).self) { last[domain] = at }
        return (asked, last)
    }

    /// The feed, newest first; `after` continues after that entry.
    func tipFeed(of user: UUID, after: StoredFeedTip?, limit: Int) async throws -> [StoredFeedTip] {
        let rows = try await client.query(
            """
            SELECT feed_id, tip_id, reason, at FROM wellbeing_tip_feed
            WHERE user_id = \(user) AND (\(after?.at)::timestamptz IS NULL OR (at, feed_id) < (\(after?.at), \(after?.feedId)))
            ORDER BY at DESC, feed_id DESC LIMIT \(limit)
            """, logger: logger)
        var result: [StoredFeedTip] = []
        for try await row in rows.decode((UUID, String, String, Date).self) { result.append(StoredFeedTip(feedId: row.0, tipId: row.1, reason: row.2, at: row.3)) }
        return result
    }

    func feedEntry(_ id: UUID, of user: UUID) async throws -> StoredFeedTip? {
        let rows = try await client.query("SELECT feed_id, tip_id, reason, at FROM wellbeing_tip_feed WHERE feed_id = \(id) AND user_id = \(user)", logger: logger)
        for try await row in rows.decode((UUID, String, String, Date).self) { return StoredFeedTip(feedId: row.0, tipId: row.1, reason: row.2, at: row.3) }
        return nil
    }

    func tipsInFeed(of user: UUID) async throws -> Set<String> {
        var ids = Set<String>()
        let rows = try await client.query("SELECT tip_id FROM wellbeing_tip_feed WHERE user_id = \(user)", logger: logger)
        for try await id in rows.decode(String.self) { ids.insert(id) }
        return ids
    }

    func exercise(_ id: UUID, of user: UUID) async throws -> StoredExercise? {
        let rows = try await client.query(
            """
            SELECT exercise_id, kind, title, script::text, script_hash, duration_sec, written_by, created_at, completed_at
            FROM wellbeing_exercises WHERE exercise_id = \(id) AND user_id = \(user)
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String?, String?, String?, Double?, String?, Date, Date?).self) {
            let script = try row.3.map { try Self.decoder.decode(AudioScript.self, from: Data($0.utf8)) }
            return StoredExercise(
                exerciseId: row.0, kind: row.1, title: row.2, script: script, scriptHash: row.4, durationSec: row.5, writtenBy: row.6,
                createdAt: row.7, completedAt: row.8)
        }
        return nil
    }

    func simulation(_ id: UUID, of user: UUID) async throws -> StoredSimulation? {
        let rows = try await client.query(
            """
            SELECT simulation_id, scenario_id, scenario::text, written_by, choices, started_at FROM wellbeing_simulations
            WHERE simulation_id = \(id) AND user_id = \(user)
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String?, String, [String], Date).self) {
            let written = try row.2.map { try Self.decoder.decode(PracticeScenario.self, from: Data($0.utf8)) }
            return StoredSimulation(
                simulationId: row.0, scenarioId: row.1, written: written, writtenBy: row.3, choices: row.4, startedAt: row.5)
        }
        return nil
    }

    /// The scenarios the user began most recently, newest first.
    func recentScenarios(of user: UUID, limit: Int) async throws -> [String] {
        var ids: [String] = []
        let rows = try await client.query(
            "SELECT scenario_id FROM wellbeing_simulations WHERE user_id = \(user) ORDER BY started_at DESC LIMIT \(limit)", logger: logger)
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
    }

    func announcedBadges(of user: UUID) async throws -> Set<String> {
        var ids = Set<String>()
        let rows = try await client.query("SELECT badge_id FROM wellbeing_badges WHERE user_id = \(user)", logger: logger)
        for try await id in rows.decode(String.self) { ids.insert(id) }
        return ids
    }

    func reflection(of user: UUID, week: String) async throws -> (figures: WeeklyFigures, recap: String, writtenBy: String, at: Date)? {
        let rows = try await client.query(
            "SELECT figures::text, recap, written_by, written_at FROM wellbeing_reflections WHERE user_id = \(user) AND week = \(week)::date", logger: logger)
        for try await row in rows.decode((String, String, String, Date).self) {
            return (try Self.decoder.decode(WeeklyFigures.self, from: Data(row.0.utf8)), row.1, row.2, row.3)
        }
        return nil
    }
}
