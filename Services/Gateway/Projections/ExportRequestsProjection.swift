import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `export_requests`, from `user.export_requested`: the exports the export worker owes; forgotten
/// with their user (`user.erased`).
public struct ExportRequestsProjection: Projection {
    public let name = GatewayProjection.exportRequests
    public let topics: [Topic] = [.users]
    public let tables = ["export_requests"]
    public let eventTypes: Set<String>? = [UserExportRequested.eventType, UserErased.eventType]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let requested as UserExportRequested:
                try await connection.query(
                    """
                    INSERT INTO export_requests (export_id, user_id, scope, household_id, requested_at)
                    VALUES (\(requested.exportId), \(requested.userId), \(requested.scope), \(requested.householdId), \(event.metadata.occurredAt))
                    ON CONFLICT (export_id) DO NOTHING
                    """, logger: logger)
            case let erased as UserErased:
                try await connection.query(
                    """
                    DELETE FROM export_requests WHERE user_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds))
                    """, logger: logger)
            default:
                continue
            }
        }
    }
}
