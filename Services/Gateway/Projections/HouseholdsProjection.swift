import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `households`: the current name and preferences of each household, from `household.upserted`,
/// less the households erased with their last adult (`user.erased`, on the users topic).
public struct HouseholdsProjection: Projection {
    public let name = "households"
    public let topics: [Topic] = [.households, .users]
    public let tables = ["households"]
    /// Of the users topic only `user.erased` is read: registrations and profile updates, most of
    /// that topic, are passed over undecoded.
    public let eventTypes: Set<String>? = [HouseholdUpserted.eventType, UserErased.eventType]
    /// The gateway caches household reads (`HouseholdResponseCache`).
    public let announcesChanges = true

    public init() {}

    private struct Row {
        var event: HouseholdUpserted
        var eventId: UUID
        var createdAt: Date
        var updatedAt: Date
        var changes: Int32
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // Several events of one household in a batch collapse into one row write; the last wins.
        var rows: [UUID: Row] = [:]
        var order: [UUID] = []
        for event in events {
            if let erased = event.payload as? UserErased {
                // The upserts collected so far are written first, so the erasure removes what
                // came before it and an upsert after it in the batch is applied after it, as
                // applying one by one would.
                try await write(rows, order: order, on: connection, logger: logger)
                rows = [:]
                order = []
                try await erase(erased, on: connection, logger: logger)
                continue
            }
            guard let upserted = event.payload as? HouseholdUpserted else { continue }
            guard Int32(exactly: upserted.householdVersion) != nil, upserted.householdVersion > 0 else {
                throw InvalidEvent(reason: "household_version \(upserted.householdVersion) is out of range", position: event.position)
            }
            let id = upserted.householdId
            if var row = rows[id] {
                // Collapsing must give what applying one by one gives (replay batches differ from
                // live ones): the highest version, and the last user id that was given.
                let previous = row.event
                row.event = upserted
                row.event.householdVersion = max(previous.householdVersion, upserted.householdVersion)
                row.event.userId = upserted.userId ?? previous.userId
                row.eventId = event.metadata.id
                row.updatedAt = event.metadata.occurredAt
                row.changes += 1
                rows[id] = row
            } else {
                order.append(id)
                rows[id] = Row(event: upserted, eventId: event.metadata.id, createdAt: event.metadata.occurredAt, updatedAt: event.metadata.occurredAt, changes: 1)
            }
        }
        try await write(rows, order: order, on: connection, logger: logger)
    }

    /// `user.erased`: the households erased with the user (those they were the only adult of)
    /// are removed. Households that stay keep their row: `user_id` (who last changed it) is an id,
    /// not personal data, and the rest belongs to the household.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        guard !erased.householdIds.isEmpty else { return }
        try await connection.query("DELETE FROM households WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
    }

    /// Writes the collapsed upserts in one statement.
    private func write(_ rows: [UUID: Row], order: [UUID], on connection: PostgresConnection, logger: Logger) async throws {
        guard !order.isEmpty else { return }
        var ids: [UUID] = [], names: [String] = [], hasName: [Bool] = [], prefs: [String] = [], versions: [Int32] = []
        var users: [String] = [], hasUser: [Bool] = [], changes: [Int32] = [], created: [String] = [], updated: [String] = [], eventIds: [UUID] = []
        for id in order {
            let row = rows[id]!
            ids.append(id)
            names.append(row.event.name ?? "")
            hasName.append(row.event.name != nil)
            prefs.append(row.event.prefs.jsonText)
            versions.append(Int32(row.event.householdVersion))
            users.append(row.event.userId ?? "")
            hasUser.append(row.event.userId != nil)
            changes.append(row.changes)
            created.append(Timestamp.format(row.createdAt))
            updated.append(Timestamp.format(row.updatedAt))
            eventIds.append(row.eventId)
        }
        // Rows that exist are changed by a plain UPDATE and only new ones go through INSERT: an
        // `ON CONFLICT DO UPDATE` locks each existing row first, one more WAL record per event.
        // The INSERT keeps its conflict clause for a row another writer creates meanwhile.
        try await connection.query(
            """
            WITH v AS (
                SELECT * FROM unnest(\(ids)::uuid[], \(names)::text[], \(hasName)::bool[], \(prefs)::text[], \(versions)::int[],
                                     \(users)::text[], \(hasUser)::bool[], \(changes)::int[], \(created)::text[], \(updated)::text[], \(eventIds)::uuid[])
                    AS v(id, name, has_name, prefs, version, user_id, has_user, changes, created, updated, event_id)
            ), changed AS (
                UPDATE households h SET
                    name = CASE WHEN v.has_name THEN v.name END,
                    prefs = v.prefs::jsonb,
                    version = GREATEST(h.version, v.version),
                    user_id = COALESCE(CASE WHEN v.has_user THEN v.user_id END, h.user_id),
                    changes = h.changes + v.changes,
                    updated_at = v.updated::timestamptz,
                    last_event_id = v.event_id
                FROM v WHERE h.household_id = v.id
                RETURNING h.household_id
            )
            INSERT INTO households (household_id, name, prefs, version, user_id, changes, created_at, updated_at, last_event_id)
            SELECT id, CASE WHEN has_name THEN name END, prefs::jsonb, version, CASE WHEN has_user THEN user_id END,
                   changes, created::timestamptz, updated::timestamptz, event_id
            FROM v WHERE NOT EXISTS (SELECT 1 FROM changed WHERE changed.household_id = v.id)
            ON CONFLICT (household_id) DO UPDATE SET
                name = EXCLUDED.name,
                prefs = EXCLUDED.prefs,
                version = GREATEST(households.version, EXCLUDED.version),
                user_id = COALESCE(EXCLUDED.user_id, households.user_id),
                changes = households.changes + EXCLUDED.changes,
                updated_at = EXCLUDED.updated_at,
                last_event_id = EXCLUDED.last_event_id
            """, logger: logger)
    }
}
