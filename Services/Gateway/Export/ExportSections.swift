import Foundation
import PostgresNIO

/// One file of an export: its name, what README.txt says of it, and the query that writes it
/// (JSON built by Postgres from the read models, so a file is one round trip). A feature adds its
/// data to the export by adding its sections here.
struct ExportSection: Sendable {
    let file: String
    let description: String
    /// The file's contents for the subject (a user, or a household), as JSON text.
    let query: @Sendable (UUID) -> PostgresQuery

    /// What a user's own export holds: everything Hearth keeps that they can see.
    static let user: [ExportSection] = [
        ExportSection(file: "profile.json", description: "Your account: sign-in provider, name, language, time zone, when you joined.") {
            """
            SELECT coalesce((SELECT row_to_json(p) FROM (
                SELECT user_id, provider, display_name, locale, time_zone, registered_at FROM users WHERE user_id = \($0)) p), '{}')::text
            """
        },
        ExportSection(file: "households.json", description: "Your households, how you joined each and your role in it, their preferences and the people in them.") {
            """
            SELECT coalesce(json_agg(h), '[]')::text FROM (
                SELECT hh.household_id, hh.name, hh.prefs, uh.via AS joined_via, uh.role, uh.joined_at,
                       (SELECT coalesce(json_agg(m ORDER BY m.added_at, m.member_id), '[]') FROM (
                            SELECT member_id, name, role, birthdate, added_at FROM household_members WHERE household_id = hh.household_id) m) AS members
                FROM user_households uh JOIN households hh USING (household_id) WHERE uh.user_id = \($0)) h
            """
        },
        // What the chat routes would show now (`household_chat_access()`): every message of a chat
        // one may still read; of a chat one left (or whose coaching ended), one's own messages only.
        ExportSection(file: "chats.json", description: "The chats you are in, with every message in them; of chats you can no longer read, your own messages.") {
            """
            SELECT coalesce(json_agg(c ORDER BY c.created_at, c.chat_id), '[]')::text FROM (
                SELECT ch.chat_id, ch.title, ch.created_at, a.user_id IS NOT NULL AS readable,
                       (SELECT coalesce(json_agg(m ORDER BY m.seq), '[]') FROM (
                            SELECT message_id, author_id, author_name, body AS text, sent_at, seq FROM chat_messages
                            WHERE chat_id = ch.chat_id AND (a.user_id IS NOT NULL OR author_id = \($0))) m) AS messages
                FROM chat_members cm JOIN chats ch USING (chat_id)
                LEFT JOIN household_chat_access() a ON a.household_id = ch.household_id AND a.user_id = cm.user_id
                WHERE cm.user_id = \($0)) c
            """
        },
        ExportSection(file: "assistant_runs.json", description: "Your assistant runs (meal plans, chores, routines): what you asked and what came back.") {
            """
            SELECT coalesce(json_agg(r ORDER BY r.started_at, r.run_id), '[]')::text FROM (
                SELECT run_id, household_id, mode, state, goal, days, start_date, terminal_event, final, started_at, finished_at,
                       input_tokens, output_tokens
                FROM agent_runs WHERE user_id = \($0)) r
            """
        },
        ExportSection(file: "assistant_actions.json", description: "What the assistant proposed to you, and what you decided.") {
            """
            SELECT coalesce(json_agg(a ORDER BY a.proposed_at, a.action_id), '[]')::text FROM (
                SELECT action_id, run_id, tool, arguments, summary, proposed_at, status, decided_at, effect_type, effect_id
                FROM assistant_actions WHERE proposed_for = \($0)) a
            """
        },
        ExportSection(file: "calendar.json", description: "Your household's calendar, and your own entries.") {
            """
            SELECT coalesce(json_agg(e ORDER BY e.starts_at, e.entry_id), '[]')::text FROM (
                SELECT entry_id, source, title, starts_at, ends_at, all_day, time_zone, kind, assignee, location, rrule
                FROM calendar_entries
                WHERE NOT deleted AND (owner_user_id = \($0)
                   OR household_id IN (SELECT household_id FROM user_households WHERE user_id = \($0)))) e
            """
        },
        ExportSection(file: "tracking.json", description: "Baby tracking of your household's children (every log, with who logged it; photos by id and SHA-256, their images at GET /v1/children/{id}/photos/{log_id}/image), and your own tracking reminders.") {
            """
            SELECT json_build_object(
                'children', (SELECT coalesce(json_agg(c ORDER BY c.child_id), '[]') FROM (
                    SELECT m.member_id AS child_id, m.name, m.birthdate, p.sex,
                           (SELECT coalesce(json_agg(l ORDER BY l.at, l.log_id), '[]') FROM (
                                SELECT log_id, kind, at, detail, logged_by, logged_at, updated_at, version
                                FROM tracking_logs WHERE child_id = m.member_id AND NOT deleted) l) AS logs
                    FROM household_members m LEFT JOIN child_profiles p ON p.child_id = m.member_id
                    WHERE m.role = 'child' AND m.household_id IN (SELECT household_id FROM user_households WHERE user_id = \($0))) c),
                'reminders', (SELECT coalesce(json_agg(r ORDER BY r.household_id), '[]') FROM (
                    SELECT household_id, feed_reminders, feed_lead_minutes, medication_reminders, medication_breaks_quiet_hours
                    FROM caregiver_reminders WHERE user_id = \($0)) r))::text
            """
        },
        ExportSection(file: "wellbeing.json", description: "Your own wellbeing space (nobody else sees it): check-ins, settings, quizzes with your answers, the tips in your feed, exercises, practice scenarios, badges and weekly reflections.") {
            """
            SELECT json_build_object(
                'checkins', (SELECT coalesce(json_agg(c ORDER BY c.at, c.checkin_id), '[]') FROM (
                    SELECT checkin_id, at, mood, urge_level, trigger_context, note, exercise_completed, triggers, logged_at, edited_at
                    FROM wellbeing_checkins WHERE user_id = \($0)) c),
                'settings', (SELECT row_to_json(s) FROM (
                    SELECT window_start, window_end, time_zone, badge_only, no_autoplay, interests, reminder_cadence
                    FROM wellbeing_settings WHERE user_id = \($0)) s),
                'quizzes', (SELECT coalesce(json_agg(q ORDER BY q.started_at, q.quiz_id), '[]') FROM (
                    SELECT z.quiz_id, z.domain, z.started_at,
                           (SELECT coalesce(json_agg(a ORDER BY a.position), '[]') FROM (
                                SELECT position, question, written_by, chosen, correct, answered_at
                                FROM wellbeing_quiz_questions WHERE quiz_id = z.quiz_id) a) AS questions
                    FROM wellbeing_quizzes z WHERE z.user_id = \($0)) q),
                'tips', (SELECT coalesce(json_agg(t ORDER BY t.at, t.feed_id), '[]') FROM (
                    SELECT feed_id, tip_id, reason, at FROM wellbeing_tip_feed WHERE user_id = \($0)) t),
                'exercises', (SELECT coalesce(json_agg(e ORDER BY e.created_at, e.exercise_id), '[]') FROM (
                    SELECT exercise_id, kind, theme, title, script, duration_sec, created_at, completed_at FROM wellbeing_exercises WHERE user_id = \($0)) e),
                'simulations', (SELECT coalesce(json_agg(p ORDER BY p.started_at, p.simulation_id), '[]') FROM (
                    SELECT simulation_id, scenario_id, choices, started_at, finished_at FROM wellbeing_simulations WHERE user_id = \($0)) p),
                'badges', (SELECT coalesce(json_agg(b ORDER BY b.earned_at, b.badge_id), '[]') FROM (
                    SELECT badge_id, earned_at FROM wellbeing_badges WHERE user_id = \($0)) b),
                'reflections', (SELECT coalesce(json_agg(r ORDER BY r.week), '[]') FROM (
                    SELECT week, figures, recap, written_by, written_at FROM wellbeing_reflections WHERE user_id = \($0)) r))::text
            """
        },
        ExportSection(file: "reminders.json", description: "Your reminders.") {
            """
            SELECT coalesce(json_agg(r ORDER BY r.due_at, r.reminder_id), '[]')::text FROM (
                SELECT reminder_id, title, body, due_at, urgent, channels, source, status FROM reminders WHERE user_id = \($0)) r
            """
        },
        ExportSection(
            file: "consents.json",
            description: "What you agreed to be sent, and when not: notification channels and quiet hours, and whether your words may go to a cloud AI provider."
        ) {
            """
            SELECT json_build_object(
                'notifications', coalesce((SELECT row_to_json(s) FROM (
                    SELECT time_zone, quiet_hours_start, quiet_hours_end, channels, updated_at FROM notification_settings WHERE user_id = \($0)) s), '{}'),
                'cloud_ai', coalesce((SELECT cloud_ai_consent FROM users WHERE user_id = \($0)), false),
                'cloud_ai_updated_at', (SELECT consents_updated_at FROM users WHERE user_id = \($0)))::text
            """
        },
        ExportSection(file: "feedback.json", description: "The ratings and comments you gave the assistant.") {
            """
            SELECT coalesce(json_agg(f ORDER BY f.given_at, f.feedback_id), '[]')::text FROM (
                SELECT feedback_id, run_id, signal, comment, payload, given_at FROM feedback WHERE user_id = \($0)) f
            """
        },
        ExportSection(file: "activity_submissions.json", description: "The activities you submitted to the public feed, and what moderation decided.") {
            """
            SELECT coalesce(json_agg(s ORDER BY s.submitted_at, s.submission_id), '[]')::text FROM (
                SELECT submission_id, content, status, reason, note, activity_id, submitted_at, decided_at
                FROM activity_submissions WHERE author_id = \($0)) s
            """
        },
        ExportSection(file: "activity_history.json", description: "Your favourite activities, the activities you did, and your activity preferences.") {
            """
            SELECT json_build_object(
                'favorites', (SELECT coalesce(json_agg(f ORDER BY f.created_at, f.activity_id), '[]') FROM (
                    SELECT activity_id, created_at FROM activity_favourites WHERE user_id = \($0)) f),
                'history', (SELECT coalesce(json_agg(h ORDER BY h.completed_at, h.entry_id), '[]') FROM (
                    SELECT entry_id, activity_id, completed_at, context FROM activity_history WHERE user_id = \($0)) h),
                'prefs', (SELECT prefs FROM activity_prefs WHERE user_id = \($0)))::text
            """
        },
        ExportSection(file: "usage.json", description: "Your assistant usage per month, and the model calls of your runs.") {
            """
            SELECT json_build_object(
                'months', (SELECT coalesce(json_agg(q ORDER BY q.month), '[]') FROM (SELECT month, used FROM assist_quota_usage WHERE user_id = \($0)) q),
                'model_calls', (SELECT coalesce(json_agg(m ORDER BY m.created_at, m.run_id, m.attempt), '[]') FROM (
                    SELECT run_id, attempt, phase, provider, model, input_tokens, output_tokens, cost_cents, outcome, created_at
                    FROM run_metrics WHERE run_id IN (SELECT run_id FROM agent_runs WHERE user_id = \($0))) m))::text
            """
        },
        ExportSection(file: "coaching.json", description: "As a coach: your prospects, your invites and your client households with the scope each gave you.") {
            """
            SELECT json_build_object(
                'prospects', (SELECT coalesce(json_agg(p ORDER BY p.added_at, p.prospect_id), '[]') FROM (
                    SELECT prospect_id, name, note, household_id, added_at FROM coach_prospects WHERE coach_id = \($0)) p),
                'invites', (SELECT coalesce(json_agg(i ORDER BY i.expires_at, i.invite_id), '[]') FROM (
                    SELECT invite_id, prospect_id, expires_at, accepted_household, accepted_at FROM coach_invites WHERE coach_id = \($0)) i),
                'clients', (SELECT coalesce(json_agg(k ORDER BY k.started_at, k.household_id), '[]') FROM (
                    SELECT household_id, scope, started_at, ended_at FROM coach_clients WHERE coach_id = \($0)) k))::text
            """
        },
    ]

    /// What a household's owner exports for the household: its shared data.
    static let household: [ExportSection] = [
        ExportSection(file: "household.json", description: "The household, its preferences and the people in it.") {
            """
            SELECT coalesce((SELECT row_to_json(h) FROM (
                SELECT hh.household_id, hh.name, hh.prefs, hh.created_at,
                       (SELECT coalesce(json_agg(m ORDER BY m.added_at, m.member_id), '[]') FROM (
                            SELECT member_id, name, role, birthdate, added_at FROM household_members WHERE household_id = hh.household_id) m) AS members
                FROM households hh WHERE hh.household_id = \($0)) h), '{}')::text
            """
        },
        ExportSection(file: "calendar.json", description: "The household's calendar: events, chores and routines.") {
            """
            SELECT coalesce(json_agg(e ORDER BY e.starts_at, e.entry_id), '[]')::text FROM (
                SELECT entry_id, source, title, starts_at, ends_at, all_day, time_zone, kind, assignee, location, rrule
                FROM calendar_entries WHERE NOT deleted AND household_id = \($0)) e
            """
        },
        ExportSection(file: "tracking.json", description: "Baby tracking: each child's logs, allergen exposures and reactions, check-ins, and the household's tracking settings (photos by id and SHA-256).") {
            """
            SELECT json_build_object(
                'children', (SELECT coalesce(json_agg(c ORDER BY c.child_id), '[]') FROM (
                    SELECT m.member_id AS child_id, m.name, m.birthdate, p.sex,
                           (SELECT coalesce(json_agg(l ORDER BY l.at, l.log_id), '[]') FROM (
                                SELECT log_id, kind, at, detail, logged_by, logged_at, updated_at, version
                                FROM tracking_logs WHERE child_id = m.member_id AND NOT deleted) l) AS logs,
                           (SELECT coalesce(json_agg(a ORDER BY a.allergen), '[]') FROM (
                                SELECT allergen, first_exposed_at, exposures, reacted_at, reaction_severity, reaction_source
                                FROM child_allergens WHERE child_id = m.member_id) a) AS allergens,
                           (SELECT coalesce(json_agg(k ORDER BY k.logged_at, k.check_in_id), '[]') FROM (
                                SELECT check_in_id, food_log_id, allergens, logged_at, outcome, severity, symptoms, answered_by, answered_at
                                FROM allergen_check_ins WHERE child_id = m.member_id) k) AS check_ins
                    FROM household_members m LEFT JOIN child_profiles p ON p.child_id = m.member_id
                    WHERE m.role = 'child' AND m.household_id = \($0)) c),
                'settings', (SELECT row_to_json(t) FROM (
                    SELECT allergen_check_ins, check_in_delay_minutes FROM tracking_settings WHERE household_id = \($0)) t))::text
            """
        },
        ExportSection(file: "coaches.json", description: "The coaches the household works with or worked with, and what each could see.") {
            """
            SELECT coalesce(json_agg(k ORDER BY k.started_at, k.coach_id), '[]')::text FROM (
                SELECT c.coach_id, u.display_name, c.scope, c.started_at, c.ended_at FROM coach_clients c
                LEFT JOIN users u ON u.user_id = c.coach_id WHERE c.household_id = \($0)) k
            """
        },
        ExportSection(file: "profile_facts.json", description: "What the household's chats taught the assistant (allergies, likes, routines), and their status.") {
            """
            SELECT coalesce(json_agg(f ORDER BY f.extracted_at, f.fact_id), '[]')::text FROM (
                SELECT fact_id, member_id, subject, kind, value, polarity, status, quoted_span, extracted_at, decided_at
                FROM profile_facts WHERE household_id = \($0)) f
            """
        },
    ]

    /// README.txt: what each file of the archive holds.
    static func readme(for sections: [ExportSection], scope: String) -> String {
        var text = scope == "household"
            ? "Your household's data in Hearth, exported at your request.\n\n"
            : "Your data in Hearth, exported at your request.\n\n"
        text += "Each file is JSON (UTF-8). Times are RFC 3339 in UTC.\n\n"
        for section in sections { text += "\(section.file)\n    \(section.description)\n" }
        return text
    }
}
