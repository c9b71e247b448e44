import Foundation
import HearthRuntime
import Logging
import PostgresNIO

/// Which household a user belongs to (`user_households`), and the tenancy rule built on it.
struct MembershipReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    func household(of userId: UUID) async throws -> UUID? {
        let rows = try await client.query("SELECT household_id FROM user_households WHERE user_id = \(userId)", logger: logger)
        for try await id in rows.decode(UUID.self) { return id }
        return nil
    }

    /// Passes only when `householdId` is the user's own household. Any other id, existing or not,
    /// is a 404: a 403 would confirm to a stranger that the household exists.
    func requireMember(_ userId: UUID, of householdId: UUID) async throws {
        guard try await household(of: userId) == householdId else { throw APIError.notFound("household") }
    }

    /// Whether `memberId` is one of the people of `householdId` (`household_members`).
    func householdHasMember(_ memberId: UUID, _ householdId: UUID) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1 FROM household_members WHERE member_id = \(memberId) AND household_id = \(householdId)", logger: logger)
        for try await _ in rows { return true }
        return false
    }
}
