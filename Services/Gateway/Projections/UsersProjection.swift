import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `users` and `user_households`, from the users topic: who each user is, and which household
/// they belong to. Authorization reads `user_households` on every household-scoped request.
public struct UsersProjection: Projection {
    public let name = "users"
    public let topics: [Topic] = [.users]
    public let tables = ["users", "user_households"]
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
            case let registered as UserRegistered:
                // A repeated registration (two first sign-ins racing) fills gaps but never
                // overwrites what a later profile update set.
                try await connection.query(
                    """
                    INSERT INTO users (user_id, provider, subject, display_name, registered_at, updated_at, last_event_id)
                    VALUES (\(registered.userId), \(registered.provider), \(registered.subject), \(registered.displayName),
                            \(occurredAt), \(occurredAt), \(eventId))
                    ON CONFLICT (user_id) DO UPDATE SET
                        provider = COALESCE(users.provider, EXCLUDED.provider),
                        subject = COALESCE(users.subject, EXCLUDED.subject),
                        display_name = COALESCE(users.display_name, EXCLUDED.display_name)
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
            case let joined as UserJoinedHousehold:
                // Joining the household one is already in (a retried first upsert) changes nothing.
                try await connection.query(
                    """
                    INSERT INTO user_households (user_id, household_id, via, joined_at, last_event_id)
                    VALUES (\(joined.userId), \(joined.householdId), \(joined.via), \(occurredAt), \(eventId))
                    ON CONFLICT (user_id) DO UPDATE SET
                        household_id = EXCLUDED.household_id,
                        via = EXCLUDED.via,
                        joined_at = EXCLUDED.joined_at,
                        last_event_id = EXCLUDED.last_event_id
                    WHERE user_households.household_id <> EXCLUDED.household_id
                    """, logger: logger)
            default:
                continue
            }
        }
    }
}
