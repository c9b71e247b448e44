import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Logging
import PostgresNIO

/// The household a run plans for, read once when the request is admitted and carried in the
/// request event, so the orchestrator plans against exactly what the user saw.
struct AssistHousehold: Sendable {
    var householdId: UUID?
    var prefs: HouseholdPrefs
    var members: [AssistMember]

    /// The seed's sample family, for users who have not set up a household yet.
    static let sample = AssistHousehold(
        householdId: nil,
        prefs: HouseholdPrefs(adults: 2, kidsAges: [4, 7], allergies: ["peanuts", "shellfish"], cuisines: ["italian", "mexican", "asian"]),
        members: [])
}

/// Reads the user's household (membership, preferences and members) in one query.
struct AssistHouseholdReader: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let decoder = JSONDecoder()

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    private struct StoredMember: Decodable {
        var name: String
        var role: String
        var birthdate: String?
    }

    /// One of the user's households: the one the body names, else the `X-Hearth-Household`
    /// header's, else their only one. Asking for any other household is a 404, as everywhere
    /// else: a 403 would confirm to a stranger that it exists. Without a household (or before its
    /// preferences are projected) the seed's sample family is used.
    func household(of user: UUID, requested: UUID?, header: String?, on day: CalendarDay) async throws -> AssistHousehold {
        var rows: [HouseholdRow.Row] = []
        for try await row in try await client.execute(HouseholdRow(user: user), logger: logger) { rows.append(row) }
        let chosen: UUID?
        if let requested {
            guard rows.contains(where: { $0.0 == requested }) else { throw APIError.notFound("household") }
            chosen = requested
        } else {
            chosen = try MembershipReadModel.select(from: rows.map(\.0), header: header)
        }
        guard let chosen, let (householdId, prefsText, membersText, profileText) = rows.first(where: { $0.0 == chosen }) else {
            return .sample
        }
        // Allergies and intolerances read from chats constrain plans at once (profile_constraints
        // holds them by the safety rule), and so does every allergen a child reacted to
        // (child_allergens, from tracking): merged with what the household declared.
        let profileAllergens = try profileText.map { try decoder.decode([String].self, from: Data($0.utf8)) } ?? []
        guard let prefsText else {
            var prefs = AssistHousehold.sample.prefs
            prefs.allergies = Self.merged(prefs.allergies, profileAllergens)
            return AssistHousehold(householdId: householdId, prefs: prefs, members: [])
        }
        var prefs = try decoder.decode(HouseholdPrefs.self, from: Data(prefsText.utf8))
        prefs.allergies = Self.merged(prefs.allergies, profileAllergens)
        let stored = try membersText.map { try decoder.decode([StoredMember].self, from: Data($0.utf8)) } ?? []
        let members = stored.map { member in
            AssistMember(
                name: member.name, role: member.role,
                age: member.birthdate.flatMap(CalendarDay.init(isoDate:)).map { HouseholdMemberRules.age(bornOn: $0, on: day) })
        }
        return AssistHousehold(householdId: householdId, prefs: prefs, members: members)
    }

    /// On the critical path of every run: prepared once per connection.
    struct HouseholdRow: PreparedStatement {
        static let sql = """
            SELECT uh.household_id, h.prefs::text,
                   (SELECT json_agg(json_build_object('name', m.name, 'role', m.role, 'birthdate', to_char(m.birthdate, 'YYYY-MM-DD'))
                                    ORDER BY m.added_at, m.member_id)
                    FROM household_members m WHERE m.household_id = uh.household_id)::text,
                   (SELECT json_agg(DISTINCT c.value) FROM (
                        SELECT pc.value FROM profile_constraints pc WHERE pc.household_id = uh.household_id
                        UNION
                        SELECT ca.allergen FROM child_allergens ca WHERE ca.household_id = uh.household_id AND ca.reacted_at IS NOT NULL
                    ) c)::text
            FROM user_households uh LEFT JOIN households h ON h.household_id = uh.household_id
            WHERE uh.user_id = $1
            """
        static let bindingDataTypes: [PostgresDataType] = [.uuid]
        /// Household id, prefs JSON, members JSON, allergens from the profile and from children's reactions JSON.
        typealias Row = (UUID, String?, String?, String?)

        var user: UUID

        var parameters: [any PostgresEncodable] { [user] }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }

    static func merged(_ declared: [String], _ fromProfile: [String]) -> [String] {
        var result = declared
        for allergen in fromProfile where !result.contains(where: { $0.caseInsensitiveCompare(allergen) == .orderedSame }) {
            result.append(allergen)
        }
        return result
    }
}
