import Foundation
import HearthEvents
import Logging
import PostgresNIO

/// A client household as its coach's roster shows it.
struct CoachClientView: Encodable, Sendable {
    @LowercaseID var householdId: UUID
    var householdName: String?
    var scope: CoachScope
    var startedAt: Date
    /// The household's children, listed only while the scope includes tracking: the ids the
    /// coach reads summaries by (`GET /v1/children/{id}/summaries`).
    var children: [Child]

    struct Child: Codable, Sendable {
        var childId: String
        var name: String

        enum CodingKeys: String, CodingKey {
            case childId = "child_id"
            case name
        }
    }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case householdName = "household_name"
        case scope
        case startedAt = "started_at"
        case children
    }
}

/// A prospect: `status` is `prospect`, or `client` once their household accepted.
struct CoachProspectView: Encodable, Sendable {
    @LowercaseID var prospectId: UUID
    var name: String
    var note: String?
    @OptionalLowercaseID var householdId: UUID?
    var status: String
    var addedAt: Date

    enum CodingKeys: String, CodingKey {
        case prospectId = "prospect_id"
        case name, note
        case householdId = "household_id"
        case status
        case addedAt = "added_at"
    }
}

/// A coach as a client household sees them.
struct HouseholdCoachView: Encodable, Sendable {
    @LowercaseID var coachId: UUID
    var displayName: String?
    var scope: CoachScope
    var startedAt: Date

    enum CodingKeys: String, CodingKey {
        case coachId = "coach_id"
        case displayName = "display_name"
        case scope
        case startedAt = "started_at"
    }
}

/// A coach's invite as `coach_invites` holds it.
struct StoredCoachInvite: Sendable {
    var inviteId: UUID
    var coachId: UUID
    var prospectId: UUID?
    var expiresAt: Date
    var acceptedHousehold: UUID?
}

/// Someone who shares a coach's group chat with the caller: the only way one family finds another.
struct PeerView: Encodable, Sendable {
    @LowercaseID var userId: UUID
    var displayName: String?
    /// `coach` for the group's coach, else `member`.
    var role: String
    /// The group chats shared with them.
    var chatIds: [String]

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case displayName = "display_name"
        case role
        case chatIds = "chat_ids"
    }
}

/// Reads of the `coaching` projection's tables.
struct CoachingReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    func invite(_ code: String) async throws -> StoredCoachInvite? {
        let rows = try await client.query(
            "SELECT invite_id, coach_id, prospect_id, expires_at, accepted_household FROM coach_invites WHERE code = \(code)", logger: logger)
        for try await (id, coach, prospect, expires, accepted) in rows.decode((UUID, UUID, UUID?, Date, UUID?).self) {
            return StoredCoachInvite(inviteId: id, coachId: coach, prospectId: prospect, expiresAt: expires, acceptedHousehold: accepted)
        }
        return nil
    }

    /// The coach's current clients, longest-standing first.
    func clients(of coach: UUID) async throws -> [CoachClientView] {
        let rows = try await client.query(
            """
            SELECT k.household_id, h.name, k.scope::text, k.started_at,
                   COALESCE((SELECT json_agg(json_build_object('child_id', m.member_id, 'name', m.name) ORDER BY m.name, m.member_id)
                             FROM household_members m
                             WHERE m.household_id = k.household_id AND m.role = 'child' AND (k.scope->>'tracking')::boolean), '[]')::text
            FROM coach_clients k
            LEFT JOIN households h ON h.household_id = k.household_id
            WHERE k.coach_id = \(coach) AND k.ended_at IS NULL ORDER BY k.started_at, k.household_id
            """, logger: logger)
        var clients: [CoachClientView] = []
        for try await (household, name, scope, started, children) in rows.decode((UUID, String?, String, Date, String).self) {
            clients.append(CoachClientView(
                householdId: household, householdName: name, scope: try Self.scope(scope), startedAt: started,
                children: try JSONDecoder().decode([CoachClientView.Child].self, from: Data(children.utf8))))
        }
        return clients
    }

    /// The client household of `coach` through which `user` can be in the coach's group: one they
    /// belong to that works with the coach now (the first by id when several do); nil when none.
    func clientHousehold(of user: UUID, coach: UUID) async throws -> UUID? {
        let rows = try await client.query(
            """
            SELECT uh.household_id FROM user_households uh
            JOIN coach_clients k ON k.household_id = uh.household_id AND k.coach_id = \(coach) AND k.ended_at IS NULL
            WHERE uh.user_id = \(user) ORDER BY uh.household_id LIMIT 1
            """, logger: logger)
        for try await household in rows.decode(UUID.self) { return household }
        return nil
    }

    /// Everyone who shares a coach's group chat with `user` now (both may still read it), with
    /// the groups shared, by name.
    func peers(of user: UUID) async throws -> [PeerView] {
        let rows = try await client.query(
            """
            SELECT o.user_id, u.display_name, bool_or(o.user_id = g.coach_id), array_agg(g.chat_id ORDER BY g.chat_id)
            FROM coach_groups g
            JOIN chat_members me ON me.chat_id = g.chat_id AND me.user_id = \(user)
            JOIN household_chat_access() mine ON mine.household_id = g.chat_id AND mine.user_id = me.user_id
            JOIN chat_members o ON o.chat_id = g.chat_id AND o.user_id <> me.user_id
            JOIN household_chat_access() theirs ON theirs.household_id = g.chat_id AND theirs.user_id = o.user_id
            LEFT JOIN users u ON u.user_id = o.user_id
            GROUP BY o.user_id, u.display_name ORDER BY u.display_name, o.user_id
            """, logger: logger)
        var peers: [PeerView] = []
        for try await (id, name, isCoach, chats) in rows.decode((UUID, String?, Bool, [UUID]).self) {
            peers.append(PeerView(userId: id, displayName: name, role: isCoach ? "coach" : "member", chatIds: chats.map { $0.uuidString.lowercased() }))
        }
        return peers
    }

    func prospects(of coach: UUID) async throws -> [CoachProspectView] {
        let rows = try await client.query(
            """
            SELECT prospect_id, name, note, household_id, added_at FROM coach_prospects
            WHERE coach_id = \(coach) ORDER BY added_at, prospect_id
            """, logger: logger)
        var prospects: [CoachProspectView] = []
        for try await (id, name, note, household, added) in rows.decode((UUID, String, String?, UUID?, Date).self) {
            prospects.append(
                CoachProspectView(
                    prospectId: id, name: name, note: note, householdId: household, status: household == nil ? "prospect" : "client", addedAt: added))
        }
        return prospects
    }

    func prospectBelongs(_ prospect: UUID, to coach: UUID) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1::int FROM coach_prospects WHERE prospect_id = \(prospect) AND coach_id = \(coach)", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// The coaches a household works with now.
    func coaches(of household: UUID) async throws -> [HouseholdCoachView] {
        let rows = try await client.query(
            """
            SELECT k.coach_id, u.display_name, k.scope::text, k.started_at FROM coach_clients k
            LEFT JOIN users u ON u.user_id = k.coach_id
            WHERE k.household_id = \(household) AND k.ended_at IS NULL ORDER BY k.started_at, k.coach_id
            """, logger: logger)
        var coaches: [HouseholdCoachView] = []
        for try await (coach, name, scope, started) in rows.decode((UUID, String?, String, Date).self) {
            coaches.append(HouseholdCoachView(coachId: coach, displayName: name, scope: try Self.scope(scope), startedAt: started))
        }
        return coaches
    }

    static func scope(_ json: String) throws -> CoachScope {
        try JSONDecoder().decode(CoachScope.self, from: Data(json.utf8))
    }
}
