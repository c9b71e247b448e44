import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `users` and `user_households`, from the users topic: who each user is, which households they
/// belong to and in which role, and where their account's deletion stands. Authorization reads `user_households` on
/// every household-scoped request, and the deletion columns on every authenticated one.
public struct UsersProjection: Projection {
    public let name = "users"
    public let topics: [Topic] = [.users]
    public let tables = ["users", "user_households", "household_departures"]
    /// The gateway caches household reads, which only members may see (`HouseholdResponseCache`).
    public let announcesChanges = true

    public init() {}

    /// Events of one user arrive in order (one key, one partition) and are applied one by one:
    /// users sign up and change profiles rarely, so batching the SQL would buy nothing.
    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            let occurredAt = event.metadata.occurredAt
            let eventId = event.metadata.id
            switch event.payload {
            case let registered as UserRegisteredV2:
                // A repeated registration (two first sign-ins racing) fills gaps but never
                // overwrites what a later profile update set.
                try await connection.query(
                    """
                    INSERT INTO users (user_id, provider, subject, display_name, role, registered_at, updated_at, last_event_id)
                    VALUES (\(registered.userId), \(registered.provider), \(registered.subject), \(registered.displayName),
                            \(registered.role), \(occurredAt), \(occurredAt), \(eventId))
                    ON CONFLICT (user_id) DO UPDATE SET
                        -- The role is the first registration's; an account erased and made again chooses anew.
                        role = CASE WHEN users.erased_at IS NULL THEN users.role ELSE EXCLUDED.role END,
                        provider = COALESCE(users.provider, EXCLUDED.provider),
                        subject = COALESCE(users.subject, EXCLUDED.subject),
                        display_name = COALESCE(users.display_name, EXCLUDED.display_name),
                        -- Signing up again after being erased starts a new account (the id is
                        -- derived from the same Apple account); old sessions stay refused.
                        registered_at = CASE WHEN users.erased_at IS NULL THEN users.registered_at ELSE EXCLUDED.registered_at END,
                        deletion_requested_at = CASE WHEN users.erased_at IS NULL THEN users.deletion_requested_at END,
                        erase_after = CASE WHEN users.erased_at IS NULL THEN users.erase_after END,
                        erased_at = NULL
                    """, logger: logger)
            case let profile as UserProfileUpdated:
                try await connection.query(
                    """
                    INSERT INTO users (user_id, display_name, locale, time_zone, registered_at, updated_at, last_event_id)
                    VALUES (\(profile.userId), \(profile.displayName), \(profile.locale), \(profile.timeZone),
                            \(occurredAt), \(occurredAt), \(eventId))
                    ON CONFLICT (user_id) DO UPDATE SET
                        display_name = COALESCE(EXCLUDED.display_name, users.display_name),
                        locale = COALESCE(EXCLUDED.locale, users.locale),
                        time_zone = COALESCE(EXCLUDED.time_zone, users.time_zone),
                        updated_at = EXCLUDED.updated_at,
                        last_event_id = EXCLUDED.last_event_id
                    """, logger: logger)
            case let joined as UserJoinedHouseholdV2:
                // A v1 join was a move: the other memberships end with it. Joining a household one
                // is already in (a retried first upsert, a second invite) changes nothing.
                if joined.leavesOthers {
                    // A move leaves the others: departures, as a leave would record them.
                    let moved = try await connection.query(
                        """
                        WITH moved AS (
                            DELETE FROM user_households WHERE user_id = \(joined.userId) AND household_id <> \(joined.householdId)
                            RETURNING household_id
                        )
                        INSERT INTO household_departures (user_id, household_id, left_at)
                        SELECT \(joined.userId), household_id, \(occurredAt) FROM moved
                        ON CONFLICT (user_id, household_id) DO UPDATE SET left_at = EXCLUDED.left_at
                        RETURNING household_id
                        """, logger: logger)
                    var left: [UUID] = []
                    for try await household in moved.decode(UUID.self) { left.append(household) }
                    try await Self.passOwnership(in: left, at: occurredAt, on: connection, logger: logger)
                }
                try await connection.query(
                    "DELETE FROM household_departures WHERE user_id = \(joined.userId) AND household_id = \(joined.householdId)", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO user_households (user_id, household_id, via, role, joined_at, last_event_id)
                    VALUES (\(joined.userId), \(joined.householdId), \(joined.via), \(joined.role.rawValue), \(occurredAt), \(eventId))
                    ON CONFLICT (user_id, household_id) DO NOTHING
                    """, logger: logger)
            case let changed as UserHouseholdRoleChanged:
                try await connection.query(
                    """
                    UPDATE user_households SET role = \(changed.role.rawValue), last_event_id = \(eventId)
                    WHERE user_id = \(changed.userId) AND household_id = \(changed.householdId)
                    """, logger: logger)
            case let left as UserLeftHousehold:
                try await connection.query(
                    "DELETE FROM user_households WHERE user_id = \(left.userId) AND household_id = \(left.householdId)", logger: logger)
                try await Self.passOwnership(in: [left.householdId], at: occurredAt, on: connection, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO household_departures (user_id, household_id, left_at) VALUES (\(left.userId), \(left.householdId), \(occurredAt))
                    ON CONFLICT (user_id, household_id) DO UPDATE SET left_at = EXCLUDED.left_at
                    """, logger: logger)
            case let requested as UserDeletionRequested:
                try await connection.query(
                    """
                    UPDATE users SET deletion_requested_at = \(requested.requestedAt), erase_after = \(requested.eraseAfter),
                        sessions_valid_after = GREATEST(sessions_valid_after, \(requested.requestedAt)),
                        updated_at = \(occurredAt), last_event_id = \(eventId)
                    WHERE user_id = \(requested.userId) AND erased_at IS NULL
                    """, logger: logger)
            case let consents as UserConsentsUpdated:
                try await connection.query(
                    """
                    UPDATE users SET cloud_ai_consent = \(consents.cloudAI), consents_updated_at = \(occurredAt), updated_at = \(occurredAt),
                        last_event_id = \(eventId)
                    WHERE user_id = \(consents.userId) AND erased_at IS NULL
                    """, logger: logger)
            case let cancelled as UserDeletionCancelled:
                try await connection.query(
                    """
                    UPDATE users SET deletion_requested_at = NULL, erase_after = NULL, updated_at = \(occurredAt), last_event_id = \(eventId)
                    WHERE user_id = \(cancelled.userId) AND erased_at IS NULL
                    """, logger: logger)
            case let erased as UserErased:
                // A tombstone without anything personal: the id and when, so that sessions stay
                // refused and the eraser does not take the user up again.
                try await connection.query(
                    """
                    UPDATE users SET provider = NULL, subject = NULL, display_name = NULL, locale = NULL, time_zone = NULL,
                        cloud_ai_consent = false, consents_updated_at = NULL, erased_at = \(occurredAt), updated_at = \(occurredAt), last_event_id = \(eventId)
                    WHERE user_id = \(erased.userId)
                    """, logger: logger)
                let removed = try await connection.query(
                    """
                    DELETE FROM user_households WHERE user_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds))
                    RETURNING household_id
                    """, logger: logger)
                var shared: [UUID] = []
                for try await household in removed.decode(UUID.self) where !erased.householdIds.contains(household) { shared.append(household) }
                try await Self.passOwnership(in: shared, at: occurredAt, on: connection, logger: logger)
                try await connection.query(
                    "DELETE FROM household_departures WHERE user_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds))",
                    logger: logger)
            default:
                continue
            }
        }
    }

    /// A household left without an owner (its last owner moved away under v1, or was erased
    /// while others stay) passes ownership to the adult who has been there longest: someone must
    /// be able to invite, remove and choose coaches. A caregiver is not made an owner (the
    /// household stays without one until an owner is named). Only members who had joined when the
    /// owner went are candidates, so a replay that reads other users' partitions in another
    /// order reaches the same heir.
    static func passOwnership(in households: [UUID], at departure: Date, on connection: PostgresConnection, logger: Logger) async throws {
        guard !households.isEmpty else { return }
        try await connection.query(
            """
            UPDATE user_households u SET role = 'owner'
            FROM (
                SELECT DISTINCT ON (household_id) household_id, user_id FROM user_households
                WHERE household_id = ANY(\(households)) AND role = 'adult' AND joined_at <= \(departure)
                  AND household_id NOT IN (SELECT household_id FROM user_households WHERE role = 'owner' AND household_id = ANY(\(households)))
                ORDER BY household_id, joined_at, user_id
            ) heir
            WHERE u.user_id = heir.user_id AND u.household_id = heir.household_id
            """, logger: logger)
    }
}
