import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `coach_invites`, `coach_prospects` and `coach_clients`, from the coach.* events on the users
/// topic: each coach's roster, and the scope of every relationship, which every coach read is
/// checked against (`MembershipReadModel.coachScope`); and each coach's group chats
/// (`coach_groups`, `coach_group_members`), which `household_chat_access()` reads.
public struct CoachingProjection: Projection {
    public let name = "coaching"
    public let topics: [Topic] = [.users]
    public let tables = ["coach_invites", "coach_prospects", "coach_clients", "coach_groups", "coach_group_members"]
    public let eventTypes: Set<String>? = Set(CoachingEvents.payloadTypes.map { $0.eventType }).union([UserErased.eventType])

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        let encoder = JSONEncoder()
        for event in events {
            let occurredAt = event.metadata.occurredAt
            switch event.payload {
            case let invited as CoachClientInvited:
                try await connection.query(
                    """
                    INSERT INTO coach_invites (code, invite_id, coach_id, prospect_id, expires_at)
                    VALUES (\(invited.code), \(invited.inviteId), \(invited.coachId), \(invited.prospectId), \(invited.expiresAt))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            case let added as CoachProspectAdded:
                try await connection.query(
                    """
                    INSERT INTO coach_prospects (prospect_id, coach_id, name, note, added_at)
                    VALUES (\(added.prospectId), \(added.coachId), \(added.name), \(added.note), \(occurredAt))
                    ON CONFLICT (prospect_id) DO NOTHING
                    """, logger: logger)
            case let accepted as CoachClientAccepted:
                let scope = String(decoding: try encoder.encode(accepted.scope), as: UTF8.self)
                try await connection.query(
                    """
                    UPDATE coach_invites SET accepted_household = \(accepted.householdId), accepted_at = \(occurredAt)
                    WHERE invite_id = \(accepted.inviteId) AND accepted_household IS NULL
                    """, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO coach_clients (coach_id, household_id, scope, started_at, ended_at, last_event_id)
                    VALUES (\(accepted.coachId), \(accepted.householdId), \(scope)::jsonb, \(occurredAt), NULL, \(event.metadata.id))
                    ON CONFLICT (coach_id, household_id) DO UPDATE SET scope = EXCLUDED.scope, started_at = EXCLUDED.started_at,
                        ended_at = NULL, last_event_id = EXCLUDED.last_event_id
                    """, logger: logger)
                if let prospect = accepted.prospectId {
                    try await connection.query(
                        "UPDATE coach_prospects SET household_id = \(accepted.householdId) WHERE prospect_id = \(prospect) AND coach_id = \(accepted.coachId)",
                        logger: logger)
                }
            case let changed as CoachScopeChanged:
                let scope = String(decoding: try encoder.encode(changed.scope), as: UTF8.self)
                try await connection.query(
                    """
                    UPDATE coach_clients SET scope = \(scope)::jsonb, last_event_id = \(event.metadata.id)
                    WHERE coach_id = \(changed.coachId) AND household_id = \(changed.householdId) AND ended_at IS NULL
                    """, logger: logger)
            case let ended as CoachRelationshipEnded:
                try await connection.query(
                    """
                    UPDATE coach_clients SET ended_at = \(occurredAt), last_event_id = \(event.metadata.id)
                    WHERE coach_id = \(ended.coachId) AND household_id = \(ended.householdId) AND ended_at IS NULL
                    """, logger: logger)
            case let group as CoachGroupCreated:
                try await connection.query(
                    """
                    INSERT INTO coach_groups (chat_id, coach_id, created_at) VALUES (\(group.chatId), \(group.coachId), \(occurredAt))
                    ON CONFLICT (chat_id) DO NOTHING
                    """, logger: logger)
                for member in group.members {
                    try await connection.query(
                        """
                        INSERT INTO coach_group_members (chat_id, user_id, household_id, added_at)
                        VALUES (\(group.chatId), \(member.userId), \(member.householdId), \(occurredAt))
                        ON CONFLICT (chat_id, user_id) DO NOTHING
                        """, logger: logger)
                }
            case let erased as UserErased:
                // A coach erased takes their groups; a member erased, or their household, leaves them.
                try await connection.query(
                    "DELETE FROM coach_group_members WHERE user_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds)::uuid[])",
                    logger: logger)
                try await connection.query(
                    "DELETE FROM coach_group_members WHERE chat_id IN (SELECT chat_id FROM coach_groups WHERE coach_id = \(erased.userId))", logger: logger)
                try await connection.query("DELETE FROM coach_groups WHERE coach_id = \(erased.userId)", logger: logger)
                // A coach erased takes their roster; a household erased ends its relationships.
                try await connection.query("DELETE FROM coach_invites WHERE coach_id = \(erased.userId)", logger: logger)
                try await connection.query("DELETE FROM coach_prospects WHERE coach_id = \(erased.userId)", logger: logger)
                try await connection.query(
                    "DELETE FROM coach_clients WHERE coach_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds)::uuid[])",
                    logger: logger)
                try await connection.query(
                    "UPDATE coach_prospects SET household_id = NULL WHERE household_id = ANY(\(erased.householdIds)::uuid[])", logger: logger)
            default:
                continue
            }
        }
    }
}
