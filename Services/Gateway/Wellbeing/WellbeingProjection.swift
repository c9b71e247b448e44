import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// The wellbeing tables, from the wellbeing topic: one user's own space.
///
/// Every row is the user's; the routes read by the caller's id only, so nobody else — household
/// members, coaches, admins — ever gets a row. An event whose sealed fields are gone (the user's
/// key destroyed) writes nothing. `user.erased` (users topic, read last) removes every row of the
/// user, and the recordings of their scripts that no other exercise uses.
public struct WellbeingProjection: Projection {
    public let name = "wellbeing"
    public let topics: [Topic] = [.wellbeing, .users]
    public let tables = [
        "wellbeing_checkins", "wellbeing_settings", "wellbeing_quizzes", "wellbeing_quiz_questions", "wellbeing_tip_feed", "wellbeing_exercises",
        "wellbeing_simulations", "wellbeing_badges", "wellbeing_reflections",
    ]
    public let eventTypes: Set<String>? = Set(WellbeingEvents.payloadTypes.map { $0.eventType } + [UserErased.eventType])

    public init() {}

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder.hearth()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func json(_ value: JSONValue) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            let at = event.metadata.occurredAt
            switch event.payload {
            case let logged as WellbeingCheckInLogged:
                guard let entry = logged.entry else { continue }
                try await connection.query(
                    """
                    INSERT INTO wellbeing_checkins (checkin_id, user_id, at, mood, urge_level, trigger_context, note, exercise_completed, triggers,
                                                    crisis, logged_at)
                    VALUES (\(logged.checkinId), \(logged.userId), \(logged.at), \(entry.mood), \(entry.urgeLevel), \(entry.triggerContext),
                            \(entry.note), \(entry.exerciseCompleted), \(entry.triggers), \(entry.crisis), \(at))
                    ON CONFLICT (checkin_id) DO NOTHING
                    """, logger: logger)
            case let edited as WellbeingCheckInEdited:
                guard let entry = edited.entry else { continue }
                try await connection.query(
                    """
                    UPDATE wellbeing_checkins SET at = \(edited.at), mood = \(entry.mood), urge_level = \(entry.urgeLevel),
                        trigger_context = \(entry.triggerContext), note = \(entry.note), exercise_completed = \(entry.exerciseCompleted),
                        triggers = \(entry.triggers), crisis = \(entry.crisis), edited_at = \(at)
                    WHERE checkin_id = \(edited.checkinId) AND user_id = \(edited.userId)
                    """, logger: logger)
            case let deleted as WellbeingCheckInDeleted:
                try await connection.query(
                    "DELETE FROM wellbeing_checkins WHERE checkin_id = \(deleted.checkinId) AND user_id = \(deleted.userId)", logger: logger)
            case let updated as WellbeingSettingsUpdated:
                guard let settings = updated.settings else { continue }
                try await connection.query(
                    """
                    INSERT INTO wellbeing_settings (user_id, window_start, window_end, time_zone, badge_only, no_autoplay, interests, reminder_cadence)
                    VALUES (\(updated.userId), \(settings.windowStart), \(settings.windowEnd), \(settings.timeZone), \(settings.badgeOnly),
                            \(settings.noAutoplay), \(settings.interests), \(settings.reminderCadence))
                    ON CONFLICT (user_id) DO UPDATE SET window_start = EXCLUDED.window_start, window_end = EXCLUDED.window_end,
                        time_zone = EXCLUDED.time_zone, badge_only = EXCLUDED.badge_only, no_autoplay = EXCLUDED.no_autoplay,
                        interests = EXCLUDED.interests, reminder_cadence = EXCLUDED.reminder_cadence
                    """, logger: logger)
            case let added as WellbeingQuizQuestionsAdded:
                guard case .array(let questions)? = added.questions else { continue }
                try await connection.query(
                    """
                    INSERT INTO wellbeing_quizzes (quiz_id, user_id, domain, started_at) VALUES (\(added.quizId), \(added.userId), \(added.domain), \(added.at))
                    ON CONFLICT (quiz_id) DO NOTHING
                    """, logger: logger)
                for question in questions {
                    guard let questionId = question["id"]?.string else { continue }
                    try await connection.query(
                        """
                        INSERT INTO wellbeing_quiz_questions (quiz_id, position, user_id, question_id, question, written_by)
                        SELECT \(added.quizId), COALESCE(MAX(position), 0) + 1, \(added.userId), \(questionId), \(try Self.json(question))::jsonb,
                               \(added.writtenBy)
                        FROM wellbeing_quiz_questions WHERE quiz_id = \(added.quizId)
                        ON CONFLICT (quiz_id, question_id) DO NOTHING
                        """, logger: logger)
                }
            case let answered as WellbeingQuizAnswered:
                guard let answers = answered.answers else { continue }
                for (questionId, chosen) in answers.sorted(by: { $0.key < $1.key }) {
                    try await connection.query(
                        """
                        UPDATE wellbeing_quiz_questions SET chosen = \(chosen), correct = ((question->>'answer')::int = \(chosen)), answered_at = \(answered.at)
                        WHERE quiz_id = \(answered.quizId) AND user_id = \(answered.userId) AND question_id = \(questionId) AND chosen IS NULL
                        """, logger: logger)
                }
            case let tip as WellbeingTipPublished:
                guard let tipId = tip.tipId else { continue }
                try await connection.query(
                    """
                    INSERT INTO wellbeing_tip_feed (feed_id, user_id, tip_id, reason, at) VALUES (\(tip.feedId), \(tip.userId), \(tipId), \(tip.reason), \(tip.at))
                    ON CONFLICT (feed_id) DO NOTHING
                    """, logger: logger)
            case let audio as WellbeingAudioExerciseCreated:
                guard let script = audio.script else { continue }
                try await connection.query(
                    """
                    INSERT INTO wellbeing_exercises (exercise_id, user_id, kind, theme, title, script, script_hash, duration_sec, written_by, created_at)
                    VALUES (\(audio.exerciseId), \(audio.userId), 'audio', \(audio.theme), \(audio.title), \(try Self.json(script))::jsonb,
                            \(audio.scriptHash), \(audio.durationSec), \(audio.writtenBy), \(audio.at))
                    ON CONFLICT (exercise_id) DO NOTHING
                    """, logger: logger)
            case let completed as WellbeingExerciseCompleted:
                // A scenario's completion has no exercise row of its own until now.
                try await connection.query(
                    """
                    INSERT INTO wellbeing_exercises (exercise_id, user_id, kind, created_at, completed_at)
                    VALUES (\(completed.exerciseId), \(completed.userId), \(completed.kind), \(completed.at), \(completed.at))
                    ON CONFLICT (exercise_id) DO UPDATE SET completed_at = COALESCE(wellbeing_exercises.completed_at, EXCLUDED.completed_at)
                    WHERE wellbeing_exercises.user_id = EXCLUDED.user_id
                    """, logger: logger)
            case let started as WellbeingSimulationStartedV2:
                guard let scenarioId = started.scenarioId else { continue }
                try await connection.query(
                    """
                    INSERT INTO wellbeing_simulations (simulation_id, user_id, scenario_id, scenario, written_by, started_at)
                    VALUES (\(started.simulationId), \(started.userId), \(scenarioId), \(try started.scenario.map(Self.json))::jsonb,
                            \(started.writtenBy), \(started.at))
                    ON CONFLICT (simulation_id) DO NOTHING
                    """, logger: logger)
            case let choice as WellbeingSimulationChoiceMade:
                guard let choiceId = choice.choiceId else { continue }
                // Applied only as the next step, so a replayed or duplicated choice adds nothing.
                try await connection.query(
                    """
                    UPDATE wellbeing_simulations SET choices = choices || \(choiceId),
                        finished_at = CASE WHEN \(choice.finished) THEN \(choice.at) ELSE NULL END
                    WHERE simulation_id = \(choice.simulationId) AND user_id = \(choice.userId) AND cardinality(choices) = \(choice.step - 1)
                    """, logger: logger)
            case let badge as WellbeingBadgeEarned:
                try await connection.query(
                    """
                    INSERT INTO wellbeing_badges (user_id, badge_id, earned_at) VALUES (\(badge.userId), \(badge.badgeId), \(badge.earnedAt))
                    ON CONFLICT (user_id, badge_id) DO NOTHING
                    """, logger: logger)
            case let reflection as WellbeingReflectionWritten:
                guard let figures = reflection.figures, let recap = reflection.recap else { continue }
                try await connection.query(
                    """
                    INSERT INTO wellbeing_reflections (user_id, week, figures, recap, written_by, written_at)
                    VALUES (\(reflection.userId), \(reflection.week)::date, \(try Self.json(figures))::jsonb, \(recap), \(reflection.writtenBy), \(reflection.at))
                    ON CONFLICT (user_id, week) DO UPDATE SET figures = EXCLUDED.figures, recap = EXCLUDED.recap, written_by = EXCLUDED.written_by,
                        written_at = EXCLUDED.written_at
                    """, logger: logger)
            case let erased as UserErased:
                try await erase(erased.userId, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    private func erase(_ user: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            DELETE FROM wellbeing_audio a WHERE a.script_hash IN (SELECT script_hash FROM wellbeing_exercises WHERE user_id = \(user))
              AND NOT EXISTS (SELECT 1 FROM wellbeing_exercises e WHERE e.script_hash = a.script_hash AND e.user_id <> \(user))
            """, logger: logger)
        for table in tables + ["wellbeing_nudges_planned"] {
            try await connection.query("DELETE FROM \(unescaped: table) WHERE user_id = \(user)", logger: logger)
        }
    }
}
