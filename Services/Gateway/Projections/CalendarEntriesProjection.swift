import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `calendar_entries`: the household calendar, from calendar.event_*, chore.scheduled and
/// routine.scheduled.
///
/// The sequence is kept by the projection (the larger of the event's and one past the row's), so
/// it grows with every change even when two writers raced on the same stale read.
///
/// `user.erased` (users topic) removes the entries of the households erased with the user, and
/// the user's own entries that belong to no household.
public struct CalendarEntriesProjection: Projection {
    public let name = "calendar_entries"
    public let topics: [Topic] = [.calendar, .chores, .users]
    public let tables = ["calendar_entries"]
    /// The types of the calendar and chores topics this projection reads (feed and Google link
    /// events are passed over undecoded), and only `user.erased` of the users topic.
    public let eventTypes: Set<String>? = [
        CalendarEventCreated.eventType, CalendarEventUpdated.eventType, CalendarEventDeleted.eventType,
        ChoreScheduled.eventType, RoutineScheduled.eventType, UserErased.eventType,
    ]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let created as CalendarEventCreated:
                try await upsert(
                    id: created.eventId, household: created.householdId, owner: created.createdBy, entry: created.entry,
                    sequence: created.sequence, event: event, on: connection, logger: logger)
            case let updated as CalendarEventUpdated:
                try await upsert(
                    id: updated.eventId, household: updated.householdId, owner: updated.updatedBy, entry: updated.entry,
                    sequence: updated.sequence, event: event, on: connection, logger: logger)
            case let deleted as CalendarEventDeleted:
                try await connection.query(
                    """
                    UPDATE calendar_entries SET deleted = true, sequence = GREATEST(sequence + 1, \(deleted.sequence)),
                        updated_at = \(event.metadata.occurredAt), last_event_id = \(event.metadata.id)
                    WHERE entry_id = \(deleted.eventId) AND NOT deleted
                    """, logger: logger)
            case let chore as ChoreScheduled:
                try await upsertChore(chore, event: event, on: connection, logger: logger)
            case let routine as RoutineScheduled:
                try await upsertRoutine(routine, event: event, on: connection, logger: logger)
            case let erased as UserErased:
                try await erase(erased, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    /// `user.erased`: every entry of the households erased with the user (tombstones included:
    /// they still hold titles), and the user's entries without a household (personal events,
    /// chores and routines they alone owned). Entries they own in households that stay are the
    /// household's calendar and are kept.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        if !erased.householdIds.isEmpty {
            try await connection.query("DELETE FROM calendar_entries WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
        }
        try await connection.query(
            "DELETE FROM calendar_entries WHERE household_id IS NULL AND owner_user_id = \(erased.userId)", logger: logger)
    }

    private func upsert(
        id: UUID, household: UUID?, owner: UUID, entry: CalendarEntryState, sequence: Int, event: ProjectedEvent,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        // The owner stays whoever created the entry; a later editor does not take it over.
        try await connection.query(
            """
            INSERT INTO calendar_entries (entry_id, source, household_id, owner_user_id, title, starts_at, ends_at, all_day, time_zone,
                                          kind, member_ids, location, rrule, sequence, updated_at, last_event_id)
            VALUES (\(id), 'event', \(household), \(owner), \(entry.title), \(entry.start), \(entry.end), \(entry.allDay),
                    \(entry.timeZone), \(entry.kind.rawValue), \(entry.memberIds), \(entry.location), \(entry.rrule), \(sequence),
                    \(event.metadata.occurredAt), \(event.metadata.id))
            ON CONFLICT (entry_id) DO UPDATE SET title = EXCLUDED.title, starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at,
                all_day = EXCLUDED.all_day, time_zone = EXCLUDED.time_zone, kind = EXCLUDED.kind, member_ids = EXCLUDED.member_ids,
                location = EXCLUDED.location, rrule = EXCLUDED.rrule,
                sequence = GREATEST(calendar_entries.sequence + 1, EXCLUDED.sequence),
                updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
            WHERE NOT calendar_entries.deleted AND calendar_entries.last_event_id <> EXCLUDED.last_event_id
            """, logger: logger)
    }

    private func upsertChore(_ chore: ChoreScheduled, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        guard let entry = CalendarEntry(chore: chore, at: event.metadata.occurredAt) else {
            throw InvalidEvent(reason: "chore.scheduled at \(chore.at) is not an ISO 8601 date-time", position: event.position)
        }
        try await connection.query(
            """
            INSERT INTO calendar_entries (entry_id, source, household_id, owner_user_id, title, starts_at, ends_at, all_day, time_zone,
                                          kind, member_ids, assignee, sequence, updated_at, last_event_id)
            VALUES (\(chore.occurrenceId), 'chore', \(chore.householdId), \(chore.userId), \(chore.chore), \(entry.start), \(entry.end), false,
                    \(entry.timeZone.identifier), 'chore', \([UUID]()), \(chore.assignee), 0, \(event.metadata.occurredAt), \(event.metadata.id))
            ON CONFLICT (entry_id) DO UPDATE SET title = EXCLUDED.title, starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at,
                time_zone = EXCLUDED.time_zone, assignee = EXCLUDED.assignee, sequence = calendar_entries.sequence + 1,
                updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
            WHERE calendar_entries.last_event_id <> EXCLUDED.last_event_id
            """, logger: logger)
    }
}

extension CalendarEntriesProjection {
    /// A routine is a daily recurring entry from its first day at its local start time.
    private func upsertRoutine(_ routine: RoutineScheduled, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        guard let entry = CalendarEntry(routine: routine, at: event.metadata.occurredAt) else {
            throw InvalidEvent(
                reason: "routine.scheduled \(routine.startDate) \(routine.startsAt) / \(routine.rrule) is not a local date and time with a supported rule",
                position: event.position)
        }
        try await connection.query(
            """
            INSERT INTO calendar_entries (entry_id, source, household_id, owner_user_id, title, starts_at, ends_at, all_day, time_zone,
                                          kind, member_ids, assignee, rrule, sequence, updated_at, last_event_id)
            VALUES (\(routine.routineId), 'routine', \(routine.householdId), \(routine.userId), \(entry.title), \(entry.start), \(entry.end), false,
                    \(entry.timeZone.identifier), 'routine', \([UUID]()), \(routine.child), \(routine.rrule), 0, \(event.metadata.occurredAt),
                    \(event.metadata.id))
            ON CONFLICT (entry_id) DO UPDATE SET title = EXCLUDED.title, starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at,
                time_zone = EXCLUDED.time_zone, assignee = EXCLUDED.assignee, rrule = EXCLUDED.rrule, deleted = false,
                sequence = calendar_entries.sequence + 1, updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
            WHERE calendar_entries.last_event_id <> EXCLUDED.last_event_id
            """, logger: logger)
    }
}

/// `calendar_feeds`: secret feed URLs by token hash, from calendar.feed_created|revoked. A user's
/// feeds are deleted when they ask for their account's deletion (`user.deletion_requested`, users
/// topic), and a household's when it is erased (`user.erased`).
public struct CalendarFeedsProjection: Projection {
    public let name = "calendar_feeds"
    public let topics: [Topic] = [.calendar, .users]
    public let tables = ["calendar_feeds"]
    /// The feed events of the calendar topic (entries and Google link events are passed over
    /// undecoded), and of the users topic only the deletion request and the erasure.
    public let eventTypes: Set<String>? = [
        CalendarFeedCreated.eventType, CalendarFeedRevoked.eventType, UserDeletionRequested.eventType, UserErased.eventType,
    ]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let created as CalendarFeedCreated:
                try await connection.query(
                    """
                    INSERT INTO calendar_feeds (feed_id, token_sha256, household_id, user_id, created_at)
                    VALUES (\(created.feedId), \(created.tokenSHA256), \(created.householdId), \(created.userId), \(event.metadata.occurredAt))
                    ON CONFLICT (feed_id) DO NOTHING
                    """, logger: logger)
            case let revoked as CalendarFeedRevoked:
                try await connection.query(
                    """
                    UPDATE calendar_feeds SET revoked_at = \(event.metadata.occurredAt)
                    WHERE feed_id = \(revoked.feedId) AND revoked_at IS NULL
                    """, logger: logger)
            case let requested as UserDeletionRequested:
                // Revoked at once, not at erasure: the rows are deleted, so the tokens stop serving
                // and nothing of the feeds is left to erase later. A cancelled deletion
                // (`user.deletion_cancelled`) brings no feed back; the user creates a new one, which
                // a rebuild (reading the users topic last) must not take for one of the old ones.
                try await connection.query(
                    "DELETE FROM calendar_feeds WHERE user_id = \(requested.userId) AND created_at <= \(requested.requestedAt)", logger: logger)
            case let erased as UserErased:
                // The feeds of the households erased with the user (other members' included), and
                // any of the user's own still here (none live: they went at the request, and a
                // pending account can create none).
                if !erased.householdIds.isEmpty {
                    try await connection.query("DELETE FROM calendar_feeds WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
                }
                try await connection.query("DELETE FROM calendar_feeds WHERE user_id = \(erased.userId)", logger: logger)
            default:
                continue
            }
        }
    }
}
