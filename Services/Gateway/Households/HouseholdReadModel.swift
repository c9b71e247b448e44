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
