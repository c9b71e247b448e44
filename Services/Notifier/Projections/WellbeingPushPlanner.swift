import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// The wellbeing space's pushes, planned inside the `reminders` projection: each user's delivery
/// window (`wellbeing_windows`, from `wellbeing.settings_updated`) and a reminder for every weekly
/// reflection written (`wellbeing.reflection_written`), due when it was written, delivered over
/// APNs only; badge-only unless the user turned that off, which the dispatcher reads when it sends.
/// The dispatcher holds these reminders until the user's window opens (`DeliveryWindow`); quiet
/// hours do not apply to them, the window does.
struct WellbeingPushPlanner: Sendable {
    static let tables = ["wellbeing_windows"]
    static let eventTypes: Set<String> = [WellbeingSettingsUpdated.eventType, WellbeingReflectionWritten.eventType]
    static let source = "wellbeing"

    /// One reminder per user and week: a reflection rewritten for the same week moves it, never doubles it.
    static func reminderId(user: UUID, week: String) -> UUID {
        NotificationIdentity.derivedUUID("wellbeing-reflection|\(user.uuidString.lowercased())|\(week)")
    }

    /// Whether `event` was one of the planner's (applied).
    func apply(_ event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        switch event.payload {
        case let updated as WellbeingSettingsUpdated:
            guard let settings = updated.settings else { return true }
            try await connection.query(
                """
                INSERT INTO wellbeing_windows (user_id, window_start, window_end, time_zone, badge_only)
                VALUES (\(updated.userId), \(settings.windowStart), \(settings.windowEnd), \(settings.timeZone), \(settings.badgeOnly))
                ON CONFLICT (user_id) DO UPDATE SET window_start = EXCLUDED.window_start, window_end = EXCLUDED.window_end,
                    time_zone = EXCLUDED.time_zone, badge_only = EXCLUDED.badge_only
                """, logger: logger)
            return true
        case let reflection as WellbeingReflectionWritten:
            let id = Self.reminderId(user: reflection.userId, week: reflection.week)
            // The recap stays in the app: the push only says there is one.
            try await connection.query(
                """
                INSERT INTO reminders (reminder_id, user_id, household_id, member_id, title, body, due_at, urgent, channels,
                                       source, status, updated_at, last_event_id)
                VALUES (\(id), \(reflection.userId), NULL, NULL, 'Your weekly reflection is ready', NULL, \(event.metadata.occurredAt), false,
                        ARRAY['apns'], \(Self.source), 'pending', \(event.metadata.occurredAt), \(event.metadata.id))
                ON CONFLICT (reminder_id) DO UPDATE SET due_at = EXCLUDED.due_at, status = 'pending', updated_at = EXCLUDED.updated_at,
                    last_event_id = EXCLUDED.last_event_id
                WHERE reminders.user_id = EXCLUDED.user_id
                """, logger: logger)
            return true
        default:
            return false
        }
    }

    func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM wellbeing_windows WHERE user_id = \(erased.userId)", logger: logger)
    }
}
