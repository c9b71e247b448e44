import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `admin_actions`: the audit trail of the admin-audit topic, one row per action, so the console
/// can say which parked event was redriven, when and by whom; and `assist_quota_overrides`, the
/// quotas administrators set. The trail is kept when an administrator's account is erased (it
/// holds ids and positions only, and an audit log that forgets its actors is no audit log); an
/// erased user's own quota goes with them, and stays gone whichever order a replay brings the
/// two topics in (`admin_erased_users`). A decision delivered again (a redrive of the audit topic)
/// changes nothing: only a decision newer than the user's row is applied.
public struct AdminActionsProjection: Projection {
    public let name = "admin_actions"
    public let topics: [Topic] = [.adminAudit, .users]
    public let tables = ["admin_actions", "assist_quota_overrides", "admin_erased_users"]
    public let eventTypes: Set<String>? = [AdminDeadLetterRedriven.eventType, AdminUserQuotaSet.eventType, UserErased.eventType]

    public init() {}

    /// What a redrive acted on: the same spelling the console and its JSON twin use.
    static func redriveTarget(projection: String, topic: String, partition: Int32, offset: Int64) -> String {
        "\(projection):\(topic)/\(partition)@\(offset)"
    }

    static func quotaTarget(_ user: UUID) -> String { "user:\(user.uuidString.lowercased())" }

    /// One event at a time: admin actions are rare, and quota decisions must apply in order.
    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for event in events {
            let occurredAt = event.metadata.occurredAt
            switch event.payload {
            case let redriven as AdminDeadLetterRedriven:
                try await record(
                    event, admin: redriven.adminId, action: "redrive",
                    target: Self.redriveTarget(projection: redriven.projection, topic: redriven.topic, partition: redriven.partition, offset: redriven.offset),
                    detail: String(decoding: try encoder.encode(redriven), as: UTF8.self), on: connection, logger: logger)
            case let quota as AdminUserQuotaSet:
                guard try await record(
                    event, admin: quota.adminId, action: "quota", target: Self.quotaTarget(quota.userId),
                    detail: String(decoding: try encoder.encode(quota), as: UTF8.self), on: connection, logger: logger)
                else { continue }
                // A null quota is kept as a row too: the default again, as of this decision.
                let runs = quota.monthlyQuota.map { Int32(clamping: $0) }
                try await connection.query(
                    """
                    INSERT INTO assist_quota_overrides (user_id, monthly_quota, set_by, set_at)
                    SELECT \(quota.userId), \(runs), \(quota.adminId), \(occurredAt)
                    WHERE NOT EXISTS (SELECT 1 FROM admin_erased_users WHERE user_id = \(quota.userId))
                    ON CONFLICT (user_id) DO UPDATE SET monthly_quota = EXCLUDED.monthly_quota, set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at
                        WHERE assist_quota_overrides.set_at <= EXCLUDED.set_at
                    """, logger: logger)
            case let erased as UserErased:
                try await connection.query("INSERT INTO admin_erased_users (user_id) VALUES (\(erased.userId)) ON CONFLICT DO NOTHING", logger: logger)
                try await connection.query("DELETE FROM assist_quota_overrides WHERE user_id = \(erased.userId)", logger: logger)
            default:
                continue
            }
        }
    }

    /// Adds the action to the trail; false when it is there already (the event came again).
    @discardableResult
    private func record(
        _ event: ProjectedEvent, admin: UUID, action: String, target: String, detail: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        for try await _ in try await connection.query(
            """
            INSERT INTO admin_actions (event_id, admin_id, action, target, detail, occurred_at)
            VALUES (\(event.metadata.id), \(admin), \(action), \(target), \(detail)::jsonb, \(event.metadata.occurredAt))
            ON CONFLICT (event_id) DO NOTHING RETURNING 1
            """, logger: logger
        ).decode(Int32.self) {
            return true
        }
        return false
    }
}
