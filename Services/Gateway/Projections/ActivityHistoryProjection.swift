import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `activity_favourites`, `activity_history`, `activity_prefs`: each user's favourites, what they
/// did and their preferences (topic `activity-history`), less what `user.erased` removes. The
/// users topic comes last: a rebuild reads archived history topic by topic in this order, so the
/// erasure lands after the rows it rebuilt.
public struct ActivityHistoryProjection: Projection {
    public let name = "activity_history"
    public let topics: [Topic] = [.activityHistory, .users]
    public let tables = ["activity_favourites", "activity_history", "activity_prefs"]
    public let eventTypes: Set<String>? = [
        ActivityFavouriteSet.eventType, ActivityCompleted.eventType, ActivityPrefsSet.eventType, UserErased.eventType,
    ]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for event in events {
            switch event.payload {
            case let set as ActivityFavouriteSet where set.favourite:
                try await connection.query(
                    """
                    INSERT INTO activity_favourites (user_id, activity_id, created_at) VALUES (\(set.userId), \(set.activityId), \(event.metadata.occurredAt))
                    ON CONFLICT (user_id, activity_id) DO NOTHING
                    """, logger: logger)
            case let set as ActivityFavouriteSet:
                try await connection.query(
                    "DELETE FROM activity_favourites WHERE user_id = \(set.userId) AND activity_id = \(set.activityId)", logger: logger)
            case let completed as ActivityCompleted:
                let context = try completed.context.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
                try await connection.query(
                    """
                    INSERT INTO activity_history (entry_id, user_id, activity_id, completed_at, context)
                    VALUES (\(completed.entryId), \(completed.userId), \(completed.activityId), \(completed.completedAt), \(context)::jsonb)
                    ON CONFLICT (entry_id) DO NOTHING
                    """, logger: logger)
            case let prefs as ActivityPrefsSet:
                let json = try prefs.prefs.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
                try await connection.query(
                    """
                    INSERT INTO activity_prefs (user_id, prefs, updated_at) VALUES (\(prefs.userId), \(json)::jsonb, \(event.metadata.occurredAt))
                    ON CONFLICT (user_id) DO UPDATE SET prefs = EXCLUDED.prefs, updated_at = EXCLUDED.updated_at
                    """, logger: logger)
            case let erased as UserErased:
                try await connection.query("DELETE FROM activity_favourites WHERE user_id = \(erased.userId)", logger: logger)
                try await connection.query("DELETE FROM activity_history WHERE user_id = \(erased.userId)", logger: logger)
                try await connection.query("DELETE FROM activity_prefs WHERE user_id = \(erased.userId)", logger: logger)
            default:
                continue
            }
        }
    }
}
