import Foundation
import HearthDomain
import HearthEvents
import HearthGoogle
import HearthStore
import Logging
import PostgresNIO

/// Mirrors the household calendar into each linked user's Google calendar, one way.
///
/// A projection so that it consumes each partition in order and records its offsets in the same
/// transaction as `google_links`/`calendar_links`: an event whose effects committed is never
/// mirrored again, and one whose transaction rolled back is mirrored again idempotently (the
/// client-chosen Google id makes a repeated insert a 409, which becomes an update). Google being
/// busy or down is waited out inside the apply (see `GoogleCalendarClient`), never skipped.
///
/// From the users topic: `user.household_left` stops mirroring the household the user left into
/// their calendar (what was mirrored before stays in it); `user.deletion_requested` ends the user's mirroring at once (their link
/// and what was mirrored for them are forgotten; a restored account links again), `user.erased`
/// removes what is left of them and the entries of the households erased with them.
struct GoogleSyncProjection: Projection {
    let name = "google_sync"
    let topics: [Topic] = [.calendar, .chores, .users]
    let tables = ["google_links", "calendar_links", "google_sync_entries"]
    /// What `apply` reads: the rest of the users topic, and the calendar feeds, are passed over.
    let eventTypes: Set<String>? = [
        GoogleLinkConnected.eventType, GoogleLinkDisconnected.eventType, GoogleLinkBroken.eventType,
        CalendarEventCreated.eventType, CalendarEventUpdated.eventType, CalendarEventDeleted.eventType,
        ChoreScheduled.eventType, RoutineScheduled.eventType, UserDeletionRequested.eventType, UserErased.eventType,
        UserLeftHousehold.eventType,
    ]

    let calendar: GoogleCalendarClient
    let tokens: AccessTokens
    let alerts: LinkAlerts

    struct Target {
        let userId: UUID
        let calendarId: String
    }

    func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            let time = event.metadata.occurredAt
            switch event.payload {
            case let connected as GoogleLinkConnected:
                await tokens.forget(connected.userId)
                try await connection.query(
                    """
                    INSERT INTO google_links (user_id, household_id, calendar_id, status, changed_at)
                    VALUES (\(connected.userId), \(connected.householdId), \(connected.calendarId), 'connected', \(time))
                    ON CONFLICT (user_id) DO UPDATE SET household_id = EXCLUDED.household_id, calendar_id = EXCLUDED.calendar_id,
                        status = 'connected', reason = NULL, changed_at = EXCLUDED.changed_at
                    """, logger: logger)
                try await backfill(connected, event: event, on: connection, logger: logger)
            case let disconnected as GoogleLinkDisconnected:
                await tokens.forget(disconnected.userId)
                try await setStatus(of: disconnected.userId, "disconnected", reason: nil, at: time, on: connection, logger: logger)
            case let broken as GoogleLinkBroken:
                await tokens.forget(broken.userId)
                try await setStatus(of: broken.userId, "broken", reason: broken.reason, at: time, on: connection, logger: logger)
            case let created as CalendarEventCreated:
                let entry = CalendarEntry(id: created.eventId, state: created.entry, sequence: created.sequence, at: time)
                try await mirror(entry, household: created.householdId, owner: created.createdBy, event: event, on: connection, logger: logger)
            case let updated as CalendarEventUpdated:
                let entry = CalendarEntry(id: updated.eventId, state: updated.entry, sequence: updated.sequence, at: time)
                try await mirror(entry, household: updated.householdId, owner: updated.updatedBy, event: event, on: connection, logger: logger)
            case let deleted as CalendarEventDeleted:
                try await connection.query(
                    "UPDATE google_sync_entries SET deleted = true, last_event_id = \(event.metadata.id) WHERE hearth_id = \(deleted.eventId)",
                    logger: logger)
                try await remove(deleted.eventId, event: event, on: connection, logger: logger)
            case let chore as ChoreScheduled:
                guard let entry = CalendarEntry(chore: chore, at: time) else {
                    logger.warning("chore occurrence with an unreadable time not mirrored", metadata: ["occurrence_id": "\(chore.occurrenceId)"])
                    continue
                }
                try await mirror(entry, household: chore.householdId, owner: chore.userId, event: event, on: connection, logger: logger)
            case let routine as RoutineScheduled:
                guard let entry = CalendarEntry(routine: routine, at: time) else {
                    logger.warning("routine with an unreadable time or rule not mirrored", metadata: ["routine_id": "\(routine.routineId)"])
                    continue
                }
                try await mirror(entry, household: routine.householdId, owner: routine.userId, event: event, on: connection, logger: logger)
            case let requested as UserDeletionRequested:
                await tokens.forget(requested.userId)
                try await unlink(requested.userId, before: requested.requestedAt, on: connection, logger: logger)
            case let erased as UserErased:
                await tokens.forget(erased.userId)
                try await erase(erased, on: connection, logger: logger)
            case let left as UserLeftHousehold:
                // The household's calendar is no longer theirs to mirror; their own entries still are.
                try await connection.query(
                    """
                    UPDATE google_links SET household_id = NULL, changed_at = \(time)
                    WHERE user_id = \(left.userId) AND household_id = \(left.householdId)
                    """, logger: logger)
            default:
                continue
            }
        }
    }

    /// Nothing more is mirrored for the user: without a link row no entry targets them. Their
    /// mirrored entries are forgotten too (a new link after a restore inserts them again; Google
    /// answers 409 for one it still holds, which becomes an update). The copies already in their
    /// Google calendar stay there: their credentials are being revoked, and they are theirs.
    ///
    /// `before`: a link made after the request (the account restored, then linked again) stays,
    /// also in a rebuild, which reads the users topic after the calendar.
    private func unlink(_ user: UUID, before: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM calendar_links WHERE user_id = \(user)", logger: logger)
        try await connection.query("DELETE FROM google_links WHERE user_id = \(user) AND changed_at <= \(before)", logger: logger)
    }

    /// The user's link (if one was made since the request), the entries whose mirrored state they
    /// wrote last (the title and place in it are theirs; a later change by someone else stores
    /// the entry anew), and the erased households' entries with every user's mirror records of them.
    /// Other users' records of the user's entries in households that outlive them stay, so that
    /// deleting such an entry later still removes it from those users' calendars.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        try await unlink(erased.userId, before: .distantFuture, on: connection, logger: logger)
        try await connection.query(
            """
            DELETE FROM calendar_links WHERE hearth_id IN (
                SELECT hearth_id FROM google_sync_entries WHERE household_id = ANY(\(erased.householdIds)::uuid[]))
            """, logger: logger)
        try await connection.query(
            """
            DELETE FROM google_sync_entries
            WHERE owner_user_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds)::uuid[])
            """, logger: logger)
    }

    private func setStatus(of user: UUID, _ status: String, reason: String?, at time: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "UPDATE google_links SET status = \(status), reason = \(reason), changed_at = \(time) WHERE user_id = \(user)", logger: logger)
    }

    /// The connected links an entry goes to: every linked member of its household, or its owner
    /// when it has no household.
    private func targets(household: UUID?, owner: UUID, on connection: PostgresConnection, logger: Logger) async throws -> [Target] {
        let rows = try await connection.query(
            """
            SELECT user_id, calendar_id FROM google_links
            WHERE status = 'connected' AND ((\(household)::uuid IS NOT NULL AND household_id = \(household)::uuid) OR user_id = \(owner))
            ORDER BY user_id
            """, logger: logger)
        var found: [Target] = []
        for try await (user, calendarId) in rows.decode((UUID, String).self) { found.append(Target(userId: user, calendarId: calendarId)) }
        return found
    }

    /// Reads the user's sealed refresh token on the apply's connection, only when a refresh is due.
    private func credentialsReader(_ user: UUID, on connection: PostgresConnection, logger: Logger) -> @Sendable () async throws -> Data? {
        { try await GoogleCredentialStore.sealedRefreshToken(of: user, on: connection, logger: logger) }
    }

    private func mirror(_ entry: CalendarEntry, household: UUID?, owner: UUID, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let body = try GoogleEventBody(entry).json()
        try await connection.query(
            """
            INSERT INTO google_sync_entries (hearth_id, household_id, owner_user_id, body, last_event_id)
            VALUES (\(entry.id), \(household), \(owner), \(String(decoding: body, as: UTF8.self))::jsonb, \(event.metadata.id))
            ON CONFLICT (hearth_id) DO UPDATE SET body = EXCLUDED.body, last_event_id = EXCLUDED.last_event_id
            WHERE NOT google_sync_entries.deleted
            """, logger: logger)
        let targets = try await targets(household: household, owner: owner, on: connection, logger: logger)
        try await push(entry.id, body: body, to: targets, event: event, on: connection, logger: logger)
    }

    /// A user who links after entries exist gets every live entry of their household (or their
    /// own, without one) mirrored now; entries that arrive later are mirrored as they come.
    private func backfill(_ connected: GoogleLinkConnected, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT hearth_id, body::text FROM google_sync_entries
            WHERE NOT deleted AND ((\(connected.householdId)::uuid IS NOT NULL AND household_id = \(connected.householdId)::uuid)
                                   OR owner_user_id = \(connected.userId))
            ORDER BY hearth_id
            """, logger: logger)
        var entries: [(UUID, String)] = []
        for try await row in rows.decode((UUID, String).self) { entries.append(row) }
        let target = [Target(userId: connected.userId, calendarId: connected.calendarId)]
        for (id, body) in entries {
            try await push(id, body: Data(body.utf8), to: target, event: event, on: connection, logger: logger)
        }
        if !entries.isEmpty { logger.info("backfilled a new Google link", metadata: ["user_id": "\(connected.userId)", "entries": "\(entries.count)"]) }
    }

    private func push(_ hearthId: UUID, body: Data, to targets: [Target], event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let googleId = GoogleEventId.derive(from: hearthId)
        for target in targets {
            // A link found broken earlier in this batch stays untouched: one break, one reminder.
            guard try await isConnected(target.userId, on: connection, logger: logger) else { continue }
            let previous = try await linkStatus(hearthId, user: target.userId, on: connection, logger: logger)
            if previous?.lastEventId == event.metadata.id && previous?.status == "synced" { continue }
            do {
                let credentials = credentialsReader(target.userId, on: connection, logger: logger)
                var reply: CalendarReply
                if previous?.status == "synced" {
                    reply = try await calendar.update(body, eventId: googleId, calendarId: target.calendarId, user: target.userId, credentials: credentials)
                    if reply.status == 404 || reply.status == 410 {
                        reply = try await calendar.insert(body, calendarId: target.calendarId, user: target.userId, credentials: credentials)
                    }
                } else {
                    reply = try await calendar.insert(body, calendarId: target.calendarId, user: target.userId, credentials: credentials)
                    // Already there (an earlier attempt got through): bring it up to date.
                    if reply.status == 409 {
                        reply = try await calendar.update(body, eventId: googleId, calendarId: target.calendarId, user: target.userId, credentials: credentials)
                    }
                }
                guard (200..<300).contains(reply.status) else {
                    throw CalendarRequestRefused(status: reply.status, detail: String(decoding: reply.body.prefix(300), as: UTF8.self))
                }
                try await record(hearthId, target: target, googleId: googleId, etag: reply.etag, status: "synced", error: nil, event: event, on: connection, logger: logger)
            } catch let broken as LinkBroken {
                try await breakLink(broken, event: event, on: connection, logger: logger)
            } catch let refused as CalendarRequestRefused {
                logger.error("Google refused an entry", metadata: ["hearth_id": "\(hearthId)", "user_id": "\(target.userId)", "status": "\(refused.status)"])
                try await record(hearthId, target: target, googleId: googleId, etag: nil, status: "failed", error: refused.description, event: event, on: connection, logger: logger)
            }
        }
    }

    private func remove(_ id: UUID, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT l.user_id, l.calendar_id, l.google_event_id FROM calendar_links l
            JOIN google_links g ON g.user_id = l.user_id AND g.status = 'connected'
            WHERE l.hearth_id = \(id) AND l.status IN ('synced', 'failed') ORDER BY l.user_id
            """, logger: logger)
        var links: [(Target, String)] = []
        for try await (user, calendarId, googleId) in rows.decode((UUID, String, String).self) {
            links.append((Target(userId: user, calendarId: calendarId), googleId))
        }
        for (target, googleId) in links {
            guard try await isConnected(target.userId, on: connection, logger: logger) else { continue }
            do {
                let reply = try await calendar.delete(eventId: googleId, calendarId: target.calendarId, user: target.userId, credentials: credentialsReader(target.userId, on: connection, logger: logger))
                // Gone already (404, 410) is what a delete wants.
                guard (200..<300).contains(reply.status) || reply.status == 404 || reply.status == 410 else {
                    throw CalendarRequestRefused(status: reply.status, detail: String(decoding: reply.body.prefix(300), as: UTF8.self))
                }
                try await record(id, target: target, googleId: googleId, etag: nil, status: "deleted", error: nil, event: event, on: connection, logger: logger)
            } catch let broken as LinkBroken {
                try await breakLink(broken, event: event, on: connection, logger: logger)
            } catch let refused as CalendarRequestRefused {
                try await record(id, target: target, googleId: googleId, etag: nil, status: "failed", error: refused.description, event: event, on: connection, logger: logger)
            }
        }
    }

    private func isConnected(_ user: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query("SELECT status FROM google_links WHERE user_id = \(user)", logger: logger)
        for try await status in rows.decode(String.self) { return status == "connected" }
        return false
    }

    struct LinkState {
        let status: String
        let lastEventId: UUID
    }

    private func linkStatus(_ id: UUID, user: UUID, on connection: PostgresConnection, logger: Logger) async throws -> LinkState? {
        let rows = try await connection.query(
            "SELECT status, last_event_id FROM calendar_links WHERE hearth_id = \(id) AND user_id = \(user)", logger: logger)
        for try await (status, eventId) in rows.decode((String, UUID).self) { return LinkState(status: status, lastEventId: eventId) }
        return nil
    }

    private func record(
        _ id: UUID, target: Target, googleId: String, etag: String?, status: String, error: String?, event: ProjectedEvent,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO calendar_links (hearth_id, user_id, calendar_id, google_event_id, etag, status, last_error, last_synced_at, last_event_id)
            VALUES (\(id), \(target.userId), \(target.calendarId), \(googleId), \(etag), \(status), \(error), \(event.metadata.occurredAt), \(event.metadata.id))
            ON CONFLICT (hearth_id, user_id) DO UPDATE SET calendar_id = EXCLUDED.calendar_id, google_event_id = EXCLUDED.google_event_id,
                etag = EXCLUDED.etag, status = EXCLUDED.status, last_error = EXCLUDED.last_error,
                last_synced_at = EXCLUDED.last_synced_at, last_event_id = EXCLUDED.last_event_id
            """, logger: logger)
    }

    /// `invalid_grant`: stop mirroring for the user at once, say so on the calendar topic, and
    /// ask the notifier to tell them (urgent, now).
    private func breakLink(_ broken: LinkBroken, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        logger.warning("Google link broken", metadata: ["user_id": "\(broken.userId)", "reason": "\(broken.reason)"])
        try await setStatus(of: broken.userId, "broken", reason: broken.reason, at: event.metadata.occurredAt, on: connection, logger: logger)
        try await alerts.linkBroke(broken, cause: event.metadata)
    }
}
