import Foundation
import Logging
import PostgresNIO

/// A user as `users` and `user_households` hold them, in the API's shape.
struct UserView: Encodable, Sendable {
    @LowercaseID var userId: UUID
    var provider: String?
    /// `member` or `coach`, chosen at sign-up.
    var role: String?
    var displayName: String?
    var locale: String?
    var timeZone: String?
    /// The household requests act on without naming one: the user's only household, or the one
    /// the `X-Hearth-Household` header names; null for a user of several without the header.
    @OptionalLowercaseID var householdId: UUID?
    /// Every household the user belongs to, with the role held in it.
    var memberships: [MembershipView] = []
    var registeredAt: Date?
    /// Present while the account's deletion is pending: when it was asked for, and when the
    /// account is erased unless restored.
    var deletion: PendingDeletion?

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case provider, role
        case displayName = "display_name"
        case locale
        case timeZone = "time_zone"
        case householdId = "household_id"
        case memberships
        case registeredAt = "registered_at"
        case deletion
    }
}

/// One membership of a user, as `GET /v1/me` lists it.
struct MembershipView: Encodable, Sendable {
    @LowercaseID var householdId: UUID
    var role: String

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case role
    }
}

/// An account's deletion as `users` holds it.
struct PendingDeletion: Encodable, Sendable {
    var requestedAt: Date?
    var eraseAfter: Date?
    var erasedAt: Date?

    enum CodingKeys: String, CodingKey {
        case requestedAt = "requested_at"
        case eraseAfter = "erase_after"
        case erasedAt = "erased_at"
    }
}

struct UserReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    func find(_ id: UUID) async throws -> UserView? {
        let rows = try await client.query(
            """
            SELECT u.user_id, u.provider, u.display_name, u.locale, u.time_zone, \(unescaped: Self.membershipsColumn), u.registered_at,
                   u.deletion_requested_at, u.erase_after, u.role
            FROM users u
            WHERE u.user_id = \(id) AND u.erased_at IS NULL
            """, logger: logger)
        for try await row in rows.decode((UUID, String?, String?, String?, String?, String?, Date, Date?, Date?, String).self) {
            let memberships = try Self.memberships(row.5)
            return UserView(
                userId: row.0, provider: row.1, role: row.9, displayName: row.2, locale: row.3, timeZone: row.4,
                householdId: memberships.count == 1 ? memberships[0].householdId : nil, memberships: memberships, registeredAt: row.6,
                deletion: row.7.map { PendingDeletion(requestedAt: $0, eraseAfter: row.8, erasedAt: nil) })
        }
        return nil
    }

    /// Where the account's deletion stands: nil when it was never asked for (or was restored).
    func deletion(of id: UUID) async throws -> PendingDeletion? {
        let rows = try await client.query(
            "SELECT deletion_requested_at, erase_after, erased_at FROM users WHERE user_id = \(id)", logger: logger)
        for try await (requested, eraseAfter, erased) in rows.decode((Date?, Date?, Date?).self) where requested != nil || erased != nil {
            return PendingDeletion(requestedAt: requested, eraseAfter: eraseAfter, erasedAt: erased)
        }
        return nil
    }

    /// The account's role (`member` or `coach`) once it is registered; nil before.
    func role(of id: UUID) async throws -> String? {
        let rows = try await client.query("SELECT role FROM users WHERE user_id = \(id) AND provider IS NOT NULL", logger: logger)
        for try await role in rows.decode(String.self) { return role }
        return nil
    }

    func exists(_ id: UUID) async throws -> Bool {
        let rows = try await client.query("SELECT 1::int FROM users WHERE user_id = \(id) AND provider IS NOT NULL", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// Users in registration order, `limit` of them after skipping `offset`; with `search`, only
    /// those whose id is it, whose sign-in name (Apple's `sub`, the dev name) is it, or whose
    /// display name contains it. Hearth keeps no e-mail addresses.
    func list(limit: Int, offset: Int, search: String? = nil) async throws -> [UserView] {
        let id = search.flatMap(UUID.init(uuidString:))
        let pattern = search.map { "%" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%" }
        let rows = try await client.query(
            """
            SELECT u.user_id, u.provider, u.display_name, u.locale, u.time_zone, \(unescaped: Self.membershipsColumn), u.registered_at, u.role
            FROM users u
            WHERE u.erased_at IS NULL
              AND (\(search)::text IS NULL OR u.user_id = \(id) OR lower(u.subject) = lower(\(search)) OR u.display_name ILIKE \(pattern))
            ORDER BY u.registered_at, u.user_id LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var users: [UserView] = []
        for try await row in rows.decode((UUID, String?, String?, String?, String?, String?, Date, String).self) {
            let memberships = try Self.memberships(row.5)
            users.append(
                UserView(
                    userId: row.0, provider: row.1, role: row.7, displayName: row.2, locale: row.3, timeZone: row.4,
                    householdId: memberships.count == 1 ? memberships[0].householdId : nil, memberships: memberships,
                    registeredAt: row.6, deletion: nil))
        }
        return users
    }

    /// A user's memberships as one JSON column, oldest first.
    private static let membershipsColumn = """
        (SELECT json_agg(json_build_object('household_id', m.household_id, 'role', m.role) ORDER BY m.joined_at, m.household_id)
         FROM user_households m WHERE m.user_id = u.user_id)::text
        """

    private static func memberships(_ json: String?) throws -> [MembershipView] {
        struct Stored: Decodable {
            var household_id: UUID
            var role: String
        }
        guard let json else { return [] }
        return try JSONDecoder().decode([Stored].self, from: Data(json.utf8)).map { MembershipView(householdId: $0.household_id, role: $0.role) }
    }
}
