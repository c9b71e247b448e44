import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO

/// One household a user belongs to, and the role they hold in it.
struct Membership: Sendable, Equatable {
    let householdId: UUID
    let role: HouseholdRole
}

/// Which households a user belongs to (`user_households`), and the tenancy rules built on it.
/// A user may belong to several: a route that acts on "the" household takes it from its path or
/// body, else from the `X-Hearth-Household` header, else it is the user's only one. A coach is
/// no member of their clients' households: what they may do in one is the scope its owners gave
/// (`coach_clients`), checked on every request (`coachScope`).
struct MembershipReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    static let householdHeader = HTTPField.Name("X-Hearth-Household")!

    func memberships(of userId: UUID) async throws -> [Membership] {
        let rows = try await client.query(
            "SELECT household_id, role FROM user_households WHERE user_id = \(userId) ORDER BY joined_at, household_id", logger: logger)
        var found: [Membership] = []
        for try await (household, role) in rows.decode((UUID, String).self) {
            found.append(Membership(householdId: household, role: HouseholdRole(rawValue: role) ?? .adult))
        }
        return found
    }

    /// The household `request` acts on for `userId`: nil when they belong to none. With
    /// `required: false` (a household is context, not the subject: feedback on a run) a user of
    /// several households without the header gets nil rather than a 400.
    func household(of userId: UUID, for request: Request, required: Bool = true) async throws -> UUID? {
        let households = try await memberships(of: userId).map(\.householdId)
        let header = request.headers[Self.householdHeader]
        if !required, header == nil, households.count > 1 { return nil }
        return try Self.select(from: households, header: header)
    }

    /// The membership a request acts in. The header must name a household of the user (any other
    /// id is a 404, as for a household in a path); without it a user of several households gets
    /// a 400 naming the header, since guessing would act in the wrong family.
    static func select(from households: [UUID], header: String?) throws -> UUID? {
        if let header {
            guard let id = UUID(uuidString: header.trimmingCharacters(in: .whitespaces)) else {
                throw APIError.invalid("X-Hearth-Household", "the X-Hearth-Household header must be a household id (UUID)")
            }
            guard households.contains(id) else { throw APIError.notFound("household") }
            return id
        }
        guard households.count <= 1 else {
            throw APIError(
                .badRequest, code: "household_required",
                message: "you belong to \(households.count) households: name the one this request acts on in the X-Hearth-Household header",
                field: "X-Hearth-Household")
        }
        return households.first
    }

    /// What a coach's request needs of a client household's scope.
    enum CoachNeed: Sendable {
        case chat, calendarRead, calendarWrite, profile, tracking
    }

    /// The scope of `coach`'s current relationship with `householdId`; nil when there is none
    /// (never was, or it ended).
    func coachScope(_ coach: UUID, in householdId: UUID) async throws -> CoachScope? {
        let rows = try await client.query(
            "SELECT scope::text FROM coach_clients WHERE coach_id = \(coach) AND household_id = \(householdId) AND ended_at IS NULL",
            logger: logger)
        for try await text in rows.decode(String.self) { return try JSONDecoder().decode(CoachScope.self, from: Data(text.utf8)) }
        return nil
    }

    /// As `household(of:for:)`, and for a coach, the client household the header names when its
    /// scope allows `need`. A household with no relationship, an ended one, or a scope short of
    /// the need is a 404, as for any household not one's own.
    func household(of userId: UUID, for request: Request, coach need: CoachNeed) async throws -> UUID? {
        let households = try await memberships(of: userId).map(\.householdId)
        let header = request.headers[Self.householdHeader]
        if let header, let id = UUID(uuidString: header.trimmingCharacters(in: .whitespaces)), !households.contains(id) {
            guard let scope = try await coachScope(userId, in: id), scope.allows(need) else { throw APIError.notFound("household") }
            return id
        }
        return try Self.select(from: households, header: header)
    }

    func role(of userId: UUID, in householdId: UUID) async throws -> HouseholdRole? {
        let rows = try await client.query(
            "SELECT role FROM user_households WHERE user_id = \(userId) AND household_id = \(householdId)", logger: logger)
        for try await role in rows.decode(String.self) { return HouseholdRole(rawValue: role) ?? .adult }
        return nil
    }

    /// The household's users and their roles, when `userId` is one of its owners. A non-member
    /// gets a 404 (the household's existence is not confirmed); a member who is not an owner a
    /// 403 saying that only owners may do `what`.
    func requireOwner(_ userId: UUID, of householdId: UUID, to what: String) async throws -> [UUID: HouseholdRole] {
        let members = try await members(of: householdId)
        guard let role = members[userId] else { throw APIError.notFound("household") }
        guard role == .owner else {
            throw APIError(.forbidden, code: "owner_required", message: "only the household's owners \(what)")
        }
        return members
    }

    /// The household's users and their roles.
    func members(of householdId: UUID) async throws -> [UUID: HouseholdRole] {
        let rows = try await client.query("SELECT user_id, role FROM user_households WHERE household_id = \(householdId)", logger: logger)
        var found: [UUID: HouseholdRole] = [:]
        for try await (user, role) in rows.decode((UUID, String).self) { found[user] = HouseholdRole(rawValue: role) ?? .adult }
        return found
    }

    /// Passes only when the user belongs to `householdId`. Any other id, existing or not, is a
    /// 404: a 403 would confirm to a stranger that the household exists.
    func requireMember(_ userId: UUID, of householdId: UUID) async throws {
        guard try await role(of: userId, in: householdId) != nil else { throw APIError.notFound("household") }
    }

    /// Serializes changes to one household's memberships across requests and gateways (a
    /// session advisory lock on a pooled connection): two owners leaving at once cannot both
    /// pass the last-owner check.
    func serialized<T: Sendable>(_ householdId: UUID, _ body: @Sendable () async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            let key = Int64(bitPattern: StableHash.fnv1a("household-membership|\(householdId.uuidString.lowercased())"))
            try await connection.query("SELECT pg_advisory_lock(\(key))", logger: logger)
            do {
                let result = try await body()
                try await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
                throw error
            }
        }
    }

    /// Whether `memberId` is one of the people of `householdId` (`household_members`).
    func householdHasMember(_ memberId: UUID, _ householdId: UUID) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1 FROM household_members WHERE member_id = \(memberId) AND household_id = \(householdId)", logger: logger)
        for try await _ in rows { return true }
        return false
    }
}
