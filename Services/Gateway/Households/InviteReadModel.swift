import Foundation
import HearthEvents
import Logging
import PostgresNIO

/// An invite as `household_invites` holds it.
struct StoredInvite: Sendable {
    let code: String
    let householdId: UUID
    let expiresAt: Date
    let acceptedBy: UUID?
    let createdBy: UUID
    let role: HouseholdRole
}

struct InviteReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    func find(_ code: String) async throws -> StoredInvite? {
        let rows = try await client.query(
            "SELECT code, household_id, expires_at, accepted_by, created_by, role FROM household_invites WHERE code = \(code)", logger: logger)
        for try await (code, householdId, expiresAt, acceptedBy, createdBy, role) in rows.decode((String, UUID, Date, UUID?, UUID, String).self) {
            return StoredInvite(
                code: code, householdId: householdId, expiresAt: expiresAt, acceptedBy: acceptedBy, createdBy: createdBy,
                role: HouseholdRole(rawValue: role) ?? .adult)
        }
        return nil
    }
}
