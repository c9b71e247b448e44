import Foundation

/// The gateway's household answers as a client decodes them (`POST /v1/households/upsert`,
/// `GET /v1/households/{id}`): typed expectations instead of digging through dictionaries.
struct HouseholdWritten: Decodable, Equatable {
    let householdId: String
    let version: Int
    let position: String

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id", version, position
    }
}

struct HouseholdRead: Decodable, Equatable {
    struct Prefs: Decodable, Equatable {
        let adults: Int?
        let kidsAges: [Int]?
        let allergies: [String]?
        let cuisines: [String]?
    }

    let name: String?
    let version: Int
    let prefs: Prefs
}
