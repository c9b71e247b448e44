import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO
import Synchronization

/// A household as the `households` read model holds it, in the API's shape.
struct HouseholdView: Encodable, Sendable {
    var householdId: UUID
    var name: String?
    var version: Int
    var prefs: HouseholdPrefs
    var userId: String?
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case name, version, prefs
        case userId = "user_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// Queries on the `households` read model, plus the versions this gateway issued that the
/// projection may not have caught up with yet (so two quick upserts do not both claim one version).
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
