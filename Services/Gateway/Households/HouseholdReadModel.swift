import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO
import Synchronization

/// A household as the read models hold it, in the API's shape.
struct HouseholdView: Encodable, Sendable {
    @LowercaseID var householdId: UUID
    var name: String?
    var version: Int
    var prefs: HouseholdPrefs
    var userId: String?
    var createdAt: Date
    var updatedAt: Date
    var members: [MemberView] = []

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case name, version, prefs
        case userId = "user_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case members
    }
}

/// A person of a household. `age` is worked out from the birthdate on the day of the request.
struct MemberView: Encodable, Sendable {
    @LowercaseID var memberId: UUID
    @LowercaseID var householdId: UUID
    var name: String
    var role: String
    var birthdate: String?
    var age: Int?

    enum CodingKeys: String, CodingKey {
        case memberId = "member_id"
        case householdId = "household_id"
        case name, role, birthdate, age
    }

    init(memberId: UUID, householdId: UUID, name: String, role: String, birthdate: String?, today: CalendarDay) {
        self.memberId = memberId
        self.householdId = householdId
        self.name = name
        self.role = role
        self.birthdate = birthdate
        self.age = birthdate.flatMap { CalendarDay(isoDate: $0) }.map { HouseholdMemberRules.age(bornOn: $0, on: today) }
    }
}

/// Queries on the `households` and `household_members` read models, plus the versions this
/// gateway issued that the projection may not have caught up with yet (so two quick upserts do
/// not both claim one version).
final class HouseholdReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let issuedVersions = Mutex<[UUID: Int]>([:])
    private let prefsDecoder = JSONDecoder()
    /// Decoded preferences by their stored JSON text: a household is read far more often than it
    /// changes, and decoding the same text on every read was a visible share of a read's CPU.
    private let decodedPrefs = Mutex<[String: HouseholdPrefs]>([:])

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func find(_ id: UUID) async throws -> HouseholdView? {
        let rows = try await client.query(
            """
            SELECT household_id, name, version, prefs::text, user_id, created_at, updated_at
            FROM households WHERE household_id = \(id)
            """, logger: logger)
        for try await (householdId, name, version, prefs, userId, createdAt, updatedAt) in rows.decode((UUID, String?, Int, String, String?, Date, Date).self) {
            return HouseholdView(
                householdId: householdId, name: name, version: version,
                prefs: try prefsDecoder.decode(HouseholdPrefs.self, from: Data(prefs.utf8)),
                userId: userId, createdAt: createdAt, updatedAt: updatedAt)
        }
        return nil
    }

    /// The household with its members, as `GET` answers it.
    func details(_ id: UUID, today: CalendarDay) async throws -> HouseholdView? {
        guard var household = try await find(id) else { return nil }
        household.members = try await members(of: id, today: today)
        return household
    }

    /// The household with its members, only when `user` belongs to it (nil otherwise, so the
    /// caller answers 404 whether the household is someone else's or does not exist). One round
    /// trip: the membership rule, the household row and its members in one statement, since
    /// `GET /v1/households/{id}` is the gateway's hottest read.
    func details(_ id: UUID, visibleTo user: UUID, today: CalendarDay) async throws -> HouseholdView? {
        let rows = try await client.query(
            """
            SELECT h.household_id, h.name, h.version, h.prefs::text, h.user_id, h.created_at, h.updated_at,
                   m.member_id, m.name, m.role, to_char(m.birthdate, 'YYYY-MM-DD')
            FROM user_households u
            JOIN households h ON h.household_id = u.household_id
            LEFT JOIN household_members m ON m.household_id = h.household_id
            WHERE u.user_id = \(user) AND u.household_id = \(id)
            ORDER BY m.added_at, m.member_id
            """, logger: logger)
        var household: HouseholdView?
        for try await row in rows.decode((UUID, String?, Int, String, String?, Date, Date, UUID?, String?, String?, String?).self) {
            if household == nil {
                household = HouseholdView(
                    householdId: row.0, name: row.1, version: row.2,
                    prefs: try cachedPrefs(row.3), userId: row.4, createdAt: row.5, updatedAt: row.6)
            }
            // A household without members comes back as one row whose member columns are null.
            if let memberId = row.7, let name = row.8, let role = row.9 {
                household?.members.append(MemberView(memberId: memberId, householdId: row.0, name: name, role: role, birthdate: row.10, today: today))
            }
        }
        return household
    }

    /// What an upsert by `user` builds on, in one round trip: one row per household the user
    /// belongs to, with its stored version and preferences; for a user of none, one row without a
    /// household holding those of `firstHouseholdId` (nil when it does not exist yet) and whether
    /// the user left it.
    func upsertBasis(of user: UUID, firstHouseholdId: UUID) async throws -> [UpsertBasis] {
        var rows: [UpsertBasis] = []
        for try await (current, version, prefs, lastDeparture)
            in try await client.execute(UpsertBasisRow(user: user, firstHouseholdId: firstHouseholdId), logger: logger) {
            rows.append(UpsertBasis(currentHousehold: current, storedVersion: version, storedPrefsJSON: prefs, lastDeparture: lastDeparture))
        }
        return rows
    }

    /// Every upsert reads it before publishing: prepared once per connection.
    struct UpsertBasisRow: PreparedStatement {
        static let sql = """
            SELECT u.household_id, h.version, h.prefs::text,
                   CASE WHEN u.household_id IS NULL
                             AND EXISTS (SELECT 1 FROM household_departures d WHERE d.user_id = $1 AND d.household_id = $2)
                        THEN (SELECT max(d.left_at) FROM household_departures d WHERE d.user_id = $1) END
            FROM (SELECT 1) AS one
            LEFT JOIN user_households u ON u.user_id = $1
            LEFT JOIN households h ON h.household_id = COALESCE(u.household_id, $2)
            """
        static let bindingDataTypes: [PostgresDataType] = [.uuid, .uuid]
        typealias Row = (UUID?, Int?, String?, Date?)

        var user: UUID
        var firstHouseholdId: UUID

        var parameters: [any PostgresEncodable] { [user, firstHouseholdId] }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }

    struct UpsertBasis: Sendable {
        var currentHousehold: UUID?
        var storedVersion: Int?
        /// Kept as text: only a merge needs the stored preferences decoded.
        var storedPrefsJSON: String?
        /// For a user of no household who left the one their first upsert made: when they last
        /// left a household.
        var lastDeparture: Date?
    }

    private func cachedPrefs(_ json: String) throws -> HouseholdPrefs {
        if let known = decodedPrefs.withLock({ $0[json] }) { return known }
        let prefs = try decodePrefs(json)
        decodedPrefs.withLock { cache in
            if cache.count >= 10_000 { cache.removeAll(keepingCapacity: true) }
            cache[json] = prefs
        }
        return prefs
    }

    func decodePrefs(_ json: String) throws -> HouseholdPrefs {
        try prefsDecoder.decode(HouseholdPrefs.self, from: Data(json.utf8))
    }

    func members(of id: UUID, today: CalendarDay) async throws -> [MemberView] {
        let rows = try await client.query(
            """
            SELECT member_id, name, role, to_char(birthdate, 'YYYY-MM-DD')
            FROM household_members WHERE household_id = \(id) ORDER BY added_at, member_id
            """, logger: logger)
        var members: [MemberView] = []
        for try await (memberId, name, role, birthdate) in rows.decode((UUID, String, String, String?).self) {
            members.append(MemberView(memberId: memberId, householdId: id, name: name, role: role, birthdate: birthdate, today: today))
        }
        return members
    }

    func memberCount(of id: UUID) async throws -> Int {
        let rows = try await client.query("SELECT count(*)::bigint FROM household_members WHERE household_id = \(id)", logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// The version the next change of this household gets.
    func nextVersion(of id: UUID, stored: Int?) -> Int {
        issuedVersions.withLock { issued in
            let next = max(stored ?? 0, issued[id] ?? 0) + 1
            if issued.count > 100_000 { issued.removeAll(keepingCapacity: true) }
            issued[id] = next
            return next
        }
    }
}
