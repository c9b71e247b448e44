import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `household_members` and `household_invites`, from the households topic, less the households
/// erased with their last adult (`user.erased`, on the users topic). A projection of its own
/// beside `households` so that each owns its tables and can be replayed alone.
public struct HouseholdMembersProjection: Projection {
    public let name = "household_members"
    public let topics: [Topic] = [.households, .users]
    public let tables = ["household_members", "household_invites"]
    /// Most of the households topic is `household.upserted`, and most of the users topic
    /// registrations and profile updates, which this projection does not read.
    public let eventTypes: Set<String>? = [
        HouseholdMemberAdded.eventType, HouseholdInviteCreated.eventType, HouseholdInviteAccepted.eventType, UserErased.eventType,
    ]
    /// The gateway caches household reads, which list the members (`HouseholdResponseCache`).
    public let announcesChanges = true

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let added as HouseholdMemberAdded:
                if let birthdate = added.birthdate, !Self.isCalendarDay(birthdate) {
                    throw InvalidEvent(reason: "birthdate \(birthdate) is not YYYY-MM-DD", position: event.position)
                }
                try await connection.query(
                    """
                    INSERT INTO household_members (member_id, household_id, name, role, birthdate, added_by, added_at, last_event_id)
                    VALUES (\(added.memberId), \(added.householdId), \(added.name), \(added.role), \(added.birthdate)::date,
                            \(added.addedBy), \(event.metadata.occurredAt), \(event.metadata.id))
                    ON CONFLICT (member_id) DO NOTHING
                    """, logger: logger)
            case let invite as HouseholdInviteCreatedV2:
                try await connection.query(
                    """
                    INSERT INTO household_invites (code, household_id, created_by, created_at, expires_at, role)
                    VALUES (\(invite.code), \(invite.householdId), \(invite.createdBy), \(event.metadata.occurredAt), \(invite.expiresAt),
                            \(invite.role.rawValue))
                    ON CONFLICT (code) DO NOTHING
                    """, logger: logger)
            case let accepted as HouseholdInviteAccepted:
                // The first acceptance uses the code up; a later one (a race) changes nothing.
                try await connection.query(
                    """
                    UPDATE household_invites SET accepted_by = \(accepted.userId), accepted_at = \(event.metadata.occurredAt)
                    WHERE code = \(accepted.code) AND household_id = \(accepted.householdId) AND accepted_by IS NULL
                    """, logger: logger)
            case let erased as UserErased:
                try await erase(erased, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    /// `user.erased`: the members and invites of the households erased with the user are removed.
    /// Nothing else is: a member is a person the household plans for, not linked to a user id
    /// (`added_by` is who added them), and the ids in `created_by` / `accepted_by` of the
    /// invites of households that stay are not personal data.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        guard !erased.householdIds.isEmpty else { return }
        try await connection.query("DELETE FROM household_members WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
        try await connection.query("DELETE FROM household_invites WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
    }

    /// Checked before Postgres sees it, so a bad date is parked as an invalid event instead of
    /// being retried as a database error.
    static func isCalendarDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-")
        return parts.count == 3 && parts[0].count == 4 && parts[1].count == 2 && parts[2].count == 2
            && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
            && (1...12).contains(Int(parts[1]) ?? 0) && (1...31).contains(Int(parts[2]) ?? 0)
    }
}
