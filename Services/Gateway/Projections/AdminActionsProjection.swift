import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `admin_actions`: the audit trail of the admin-audit topic, one row per action, so the console
/// can say which parked event was redriven, when and by whom. Kept when an administrator's
/// account is erased: the trail holds ids and positions only, and an audit log that forgets its
/// actors is no audit log.
public struct AdminActionsProjection: Projection {
    public let name = "admin_actions"
    public let topics: [Topic] = [.adminAudit]
    public let tables = ["admin_actions"]

    public init() {}

    /// What a redrive acted on: the same spelling the console and its JSON twin use.
    static func redriveTarget(projection: String, topic: String, partition: Int32, offset: Int64) -> String {
        "\(projection):\(topic)/\(partition)@\(offset)"
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        var ids: [UUID] = [], admins: [UUID] = [], actions: [String] = [], targets: [String] = [], details: [String] = [], times: [String] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for event in events {
            guard let redriven = event.payload as? AdminDeadLetterRedriven else { continue }
            ids.append(event.metadata.id)
            admins.append(redriven.adminId)
            actions.append("redrive")
            targets.append(Self.redriveTarget(projection: redriven.projection, topic: redriven.topic, partition: redriven.partition, offset: redriven.offset))
            details.append(String(decoding: try encoder.encode(redriven), as: UTF8.self))
            times.append(Timestamp.format(event.metadata.occurredAt))
        }
        guard !ids.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO admin_actions (event_id, admin_id, action, target, detail, occurred_at)
            SELECT * FROM unnest(\(ids)::uuid[], \(admins)::uuid[], \(actions)::text[], \(targets)::text[], \(details)::jsonb[], \(times)::timestamptz[])
            ON CONFLICT (event_id) DO NOTHING
            """, logger: logger)
    }
}
