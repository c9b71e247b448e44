import Foundation
import HearthEvents
import HearthRuntime
import Logging
import PostgresNIO

/// What the assistant may know of the asking user, read in one query when the message is
/// accepted and carried in the request event: the household's people, the chats the user belongs
/// to (the only messages it may retrieve), the household profile, and the user's time zone.
struct AssistantContext: Sendable {
    var householdId: UUID
    var members: [AssistantMember]
    var chatIds: [UUID]
    var profile: [String]
    var timeZone: String?
}

struct AssistantContextReader: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let decoder = JSONDecoder()

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    private struct Person: Decodable {
        var id: UUID
        var isUser: Bool
        var name: String
        var role: String
        enum CodingKeys: String, CodingKey {
            case id
            case isUser = "is_user"
            case name, role
        }
    }

    /// The context of `user` in `household`; nil when they are not its member.
    func context(of user: UUID, in household: UUID) async throws -> AssistantContext? {
        let rows = try await client.query(
            """
            SELECT uh.household_id,
                   (SELECT json_agg(p ORDER BY p.is_user DESC, p.name) FROM (
                        SELECT m.member_id AS id, false AS is_user, m.name, m.role FROM household_members m WHERE m.household_id = uh.household_id
                        UNION ALL
                        SELECT u.user_id, true, COALESCE(u.display_name, 'member'), 'adult'
                        FROM user_households o JOIN users u ON u.user_id = o.user_id WHERE o.household_id = uh.household_id) p)::text,
                   (SELECT array_agg(cm.chat_id) FROM chat_members cm JOIN chats c ON c.chat_id = cm.chat_id
                    WHERE cm.user_id = uh.user_id AND c.household_id = uh.household_id),
                   (SELECT json_agg(f.subject || ': ' || f.kind || ' ' || f.value ||
                                    CASE WHEN f.polarity = 'remove' THEN ' (no longer)' ELSE '' END || ' (' || f.status || ')'
                                    ORDER BY f.extracted_at, f.fact_id)
                    FROM profile_facts f WHERE f.household_id = uh.household_id AND f.status <> 'rejected')::text,
                   (SELECT u.time_zone FROM users u WHERE u.user_id = uh.user_id)
            FROM user_households uh WHERE uh.user_id = \(user) AND uh.household_id = \(household)
            """, logger: logger)
        for try await (household, peopleText, chats, profileText, zone) in rows.decode((UUID, String?, [UUID]?, String?, String?).self) {
            let people = try peopleText.map { try decoder.decode([Person].self, from: Data($0.utf8)) } ?? []
            return AssistantContext(
                householdId: household, members: Self.members(people), chatIds: chats ?? [],
                profile: try profileText.map { try decoder.decode([String].self, from: Data($0.utf8)) } ?? [], timeZone: zone)
        }
        return nil
    }

    /// Household members and users as one list: a user whose name a member also has is that
    /// member (adults are often both), so "tell Alex" finds Alex's account.
    private static func members(_ people: [Person]) -> [AssistantMember] {
        let users = people.filter(\.isUser)
        var result: [AssistantMember] = []
        var matchedUsers = Set<UUID>()
        for person in people where !person.isUser {
            let account = users.first { $0.name.caseInsensitiveCompare(person.name) == .orderedSame && !matchedUsers.contains($0.id) }
            if let account { matchedUsers.insert(account.id) }
            result.append(AssistantMember(memberId: person.id, userId: account?.id, name: person.name, role: person.role))
        }
        for user in users where !matchedUsers.contains(user.id) {
            result.append(AssistantMember(memberId: user.id, userId: user.id, name: user.name, role: user.role))
        }
        return result
    }
}
