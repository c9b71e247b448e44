import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime

/// Body of `POST /v1/households/upsert`. Lists may be omitted (empty); `adults` may not.
struct HouseholdUpsertRequest: Decodable {
    enum Mode: String, Decodable {
        /// The given preferences replace the stored ones.
        case replace
        /// Allergies and cuisines are added to the stored ones; counts are replaced.
        case merge
    }

    struct Prefs: Decodable {
        var adults: Int
        var kidsAges: [Int]?
        var allergies: [String]?
        var cuisines: [String]?
    }

    var householdId: String?
    var name: String?
    var prefs: Prefs
    var mode: String?

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case name, prefs, mode
    }

    struct Validated {
        var householdId: UUID?
        var name: String?
        var prefs: HouseholdPrefs
        var mode: Mode
    }

    func validated() throws -> Validated {
        var id: UUID?
        if let householdId {
            guard let parsed = UUID(uuidString: householdId) else { throw APIError.invalid("household_id", "household_id must be a UUID") }
            id = parsed
        }
        var mode = Mode.replace
        if let text = self.mode {
            guard let parsed = Mode(rawValue: text) else { throw APIError.invalid("mode", "mode must be replace or merge") }
            mode = parsed
        }
        do {
            let prefs = try HouseholdPrefsRules.normalized(HouseholdPrefs(
                adults: prefs.adults, kidsAges: prefs.kidsAges ?? [], allergies: prefs.allergies ?? [], cuisines: prefs.cuisines ?? []))
            return Validated(householdId: id, name: try HouseholdPrefsRules.normalizedName(name), prefs: prefs, mode: mode)
        } catch let violation as FieldViolation {
            throw APIError.invalid(violation.field, violation.message)
        }
    }
}
