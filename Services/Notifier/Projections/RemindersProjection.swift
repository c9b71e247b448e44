import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `reminders`, from `reminder.requested` / `reminder.cancelled` (reminders topic),
/// `chore.scheduled` (chores topic), and the reminders baby tracking plans (tracking topic, with
/// the children's names from the households topic: `TrackingReminderPlanner`), and the wellbeing
/// space's silent pushes within the user's delivery window (wellbeing topic: `WellbeingPushPlanner`),
/// and a push per chat for new messages (chats topic: `ChatPushPlanner`), and the push of an account
/// deletion code (users topic: `DeletionCodePushPlanner`). One row per reminder id; a chore occurrence's reminder has
/// the occurrence's id, so a rescheduled occurrence moves its reminder instead of adding one.
///
/// The dispatcher reads this table and keeps its own state beside it (`reminder_dispatch`): a
/// new `due_at` here is a new generation it delivers again.
///
/// From the users topic: `user.household_left` cancels the user's pending reminders of that
/// household, `user.deletion_requested` cancels the user's reminders at once and
/// `user.erased` removes them (and those of the households erased with the user) together with
/// the dispatcher's rows about them. The users topic comes last: a rebuild reads archived
/// history topic by topic in this order, so the account events land after the reminders.
public struct RemindersProjection: Projection {
    public let name = "reminders"
    public let topics: [Topic] = [.reminders, .chores, .households, .tracking, .wellbeing, .chats, .users]
    public let tables = ["reminders"] + TrackingReminderPlanner.tables + WellbeingPushPlanner.tables + ChatPushPlanner.tables
    /// Of the chores, households, tracking and users topics only these matter.
    public let eventTypes: Set<String>? = Set([
        ReminderRequested.eventType, ReminderCancelled.eventType, ChoreScheduled.eventType,
        UserDeletionRequested.eventType, UserErased.eventType, UserLeftHousehold.eventType,
    ]).union(TrackingReminderPlanner.eventTypes).union(WellbeingPushPlanner.eventTypes).union(ChatPushPlanner.eventTypes)
        .union(DeletionCodePushPlanner.eventTypes)
    private let tracking = TrackingReminderPlanner()
    private let wellbeing = WellbeingPushPlanner()
    private let chats = ChatPushPlanner()
    private let deletionCodes = DeletionCodePushPlanner()

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            let occurredAt = event.metadata.occurredAt
            let eventId = event.metadata.id
            switch event.payload {
            case let requested as ReminderRequested:
                try await connection.query(
                    """
                    INSERT INTO reminders (reminder_id, user_id, household_id, member_id, title, body, due_at, urgent, channels,
                                           source, status, updated_at, last_event_id)
                    VALUES (\(requested.reminderId), \(requested.userId), \(requested.householdId), \(requested.memberId),
                            \(requested.title), \(requested.body), \(requested.dueAt), \(requested.urgent), \(requested.channels),
                            \(requested.source), 'pending', \(occurredAt), \(eventId))
                    ON CONFLICT (reminder_id) DO UPDATE SET
                        title = EXCLUDED.title, body = EXCLUDED.body, due_at = EXCLUDED.due_at, urgent = EXCLUDED.urgent,
                        channels = EXCLUDED.channels, member_id = EXCLUDED.member_id, household_id = EXCLUDED.household_id,
                        status = 'pending', updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
                    WHERE reminders.user_id = EXCLUDED.user_id
                    """, logger: logger)
            case let cancelled as ReminderCancelled:
                // Only the reminder's own user can cancel it: a cancel naming someone else is a no-op.
                try await connection.query(
                    """
                    UPDATE reminders SET status = 'cancelled', updated_at = \(occurredAt), last_event_id = \(eventId)
                    WHERE reminder_id = \(cancelled.reminderId) AND user_id = \(cancelled.userId)
                    """, logger: logger)
            case let chore as ChoreScheduled:
                try await applyChore(chore, occurredAt: occurredAt, eventId: eventId, on: connection, logger: logger)
            case let requested as UserDeletionRequested:
                // Cancelled rather than deleted: the rows are the user's until the erasure, and a
                // restored account keeps them cancelled (the dispatcher skips a cancelled reminder).
                // Only rows last changed up to the request: a rebuild applies it after the
                // reminders topic, where a reminder requested after a cancelled deletion must stay
                // pending as it did live. The queued generations go, so none is claimed again.
                try await connection.query(
                    """
                    WITH cancelled AS (
                        UPDATE reminders SET status = 'cancelled', updated_at = \(occurredAt), last_event_id = \(eventId)
                        WHERE user_id = \(requested.userId) AND status = 'pending' AND updated_at <= \(occurredAt)
                        RETURNING reminder_id
                    )
                    DELETE FROM reminder_dispatch WHERE reminder_id IN (SELECT reminder_id FROM cancelled)
                    """, logger: logger)
            case let left as UserLeftHousehold:
                // The household's reminders for someone who left it (chores, reminders about its
                // people, its messages) stop, as a deletion request stops a user's: only rows last
                // changed up to the leave, so a rebuild (users topic last) cancels what live did.
                try await connection.query(
                    """
                    WITH cancelled AS (
                        UPDATE reminders SET status = 'cancelled', updated_at = \(occurredAt), last_event_id = \(eventId)
                        WHERE user_id = \(left.userId) AND household_id = \(left.householdId) AND status = 'pending'
                          AND updated_at <= \(occurredAt)
                        RETURNING reminder_id
                    )
                    DELETE FROM reminder_dispatch WHERE reminder_id IN (SELECT reminder_id FROM cancelled)
                    """, logger: logger)
            case let erased as UserErased:
                try await erase(erased, on: connection, logger: logger)
                try await tracking.erase(erased, on: connection, logger: logger)
                try await wellbeing.erase(erased, on: connection, logger: logger)
                try await chats.erase(erased, on: connection, logger: logger)
            default:
                if try await wellbeing.apply(event, on: connection, logger: logger) { continue }
                if try await chats.apply(event, on: connection, logger: logger) { continue }
                if try await deletionCodes.apply(event, on: connection, logger: logger) { continue }
                _ = try await tracking.apply(event, on: connection, logger: logger)
            }
        }
    }

    /// The user's reminders, those of the households erased with them and the chat pushes of their
    /// words planned for others go, and with them the
    /// dispatcher's queue, delivery records and attempt log about them (the log holds the titles
    /// and bodies sent). The dispatcher's tables come first: they are found through `reminders`.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        let user = erased.userId
        let households = erased.householdIds
        try await connection.query(
            """
            DELETE FROM notification_deliveries WHERE reminder_id IN (
                SELECT reminder_id FROM reminders WHERE user_id = \(user) OR household_id = ANY(\(households)::uuid[]) OR chat_author_id = \(user))
            """, logger: logger)
        try await connection.query(
            """
            DELETE FROM reminder_dispatch WHERE reminder_id IN (
                SELECT reminder_id FROM reminders WHERE user_id = \(user) OR household_id = ANY(\(households)::uuid[]) OR chat_author_id = \(user))
            """, logger: logger)
        try await connection.query(
            """
            DELETE FROM notification_log WHERE user_id = \(user) OR reminder_id IN (
                SELECT reminder_id FROM reminders WHERE user_id = \(user) OR household_id = ANY(\(households)::uuid[]) OR chat_author_id = \(user))
            """, logger: logger)
        try await connection.query(
            "DELETE FROM reminders WHERE user_id = \(user) OR household_id = ANY(\(households)::uuid[]) OR chat_author_id = \(user)",
            logger: logger)
    }

    /// The occurrence's local `at`, read in the event's zone, else the zone the notifier knows
    /// for the user at this point of the stream, else UTC.
    private func applyChore(
        _ chore: ChoreScheduled, occurredAt: Date, eventId: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws {
        var zoneSetting: String?
        var profileZone: String?
        if chore.timeZone == nil {
            let rows = try await connection.query(
                "SELECT time_zone, profile_time_zone FROM notification_settings WHERE user_id = \(chore.userId)", logger: logger)
            for try await (setting, profile) in rows.decode((String?, String?).self) {
                zoneSetting = setting
                profileZone = profile
            }
        }
        let zone = DeliveryTiming.zone(setting: chore.timeZone ?? zoneSetting, profile: profileZone)
        guard let dueAt = LocalDateTime.instant(chore.at, in: zone) else {
            logger.warning("chore.scheduled with an unreadable time, no reminder", metadata: [
                "occurrence_id": "\(chore.occurrenceId)", "at": "\(chore.at)",
            ])
            return
        }
        let title = chore.chore
        let body = "\(chore.assignee): \(chore.chore) (\(chore.minutes) min)"
        try await connection.query(
            """
            INSERT INTO reminders (reminder_id, user_id, household_id, member_id, title, body, due_at, urgent, channels,
                                   source, status, updated_at, last_event_id)
            VALUES (\(chore.occurrenceId), \(chore.userId), \(chore.householdId), NULL, \(title), \(body), \(dueAt), false, NULL,
                    'chore', 'pending', \(occurredAt), \(eventId))
            ON CONFLICT (reminder_id) DO UPDATE SET
                title = EXCLUDED.title, body = EXCLUDED.body, due_at = EXCLUDED.due_at, household_id = EXCLUDED.household_id,
                status = 'pending', updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
            """, logger: logger)
    }
}
