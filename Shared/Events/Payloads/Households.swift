import Foundation

/// The planning preferences of a household. Field names follow the seed's wire format.
public struct HouseholdPrefs: Codable, Sendable, Equatable, Hashable {
    public var adults: Int
    public var kidsAges: [Int]
    public var allergies: [String]
    public var cuisines: [String]

    public init(adults: Int, kidsAges: [Int], allergies: [String], cuisines: [String]) {
        self.adults = adults
        self.kidsAges = kidsAges
        self.allergies = allergies
        self.cuisines = cuisines
    }

    /// Compact JSON with the keys `Codable` gives, written by hand: the `households` projection
    /// stores every upsert's preferences, and `JSONEncoder` cost more than the rest of the row.
    public var jsonText: String {
        var out: [UInt8] = []
        out.reserveCapacity(64 + 16 * (kidsAges.count + allergies.count + cuisines.count))
        out.append(contentsOf: #"{"adults":"#.utf8)
        JSONText.appendInteger(adults, to: &out)
        out.append(contentsOf: #","kidsAges":["#.utf8)
        for (index, age) in kidsAges.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendInteger(age, to: &out)
        }
        for (key, texts) in [(#"],"allergies":["#, allergies), (#"],"cuisines":["#, cuisines)] {
            out.append(contentsOf: key.utf8)
            for (index, text) in texts.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(text, to: &out)
            }
        }
        out.append(contentsOf: "]}".utf8)
        return String(decoding: out, as: UTF8.self)
    }
}

/// `household.upserted` v1: a household was created or its name and preferences replaced.
public struct HouseholdUpserted: EventPayload {
    public static let eventType = "household.upserted"
    public static let version = 1
    public static let topic = Topic.households
    public static let privacy = PayloadPrivacy(
        personal: [
            "name": .household("household_id"),
            "prefs.kidsAges": .household("household_id", erased: .array([])),
            "prefs.allergies": .household("household_id", erased: .array([])),
            "prefs.cuisines": .household("household_id", erased: .array([])),
        ],
        notPersonal: ["household_id", "household_version", "user_id", "prefs.adults"])

    public var householdId: UUID
    /// The household's version after this change, as the gateway answered it to the client.
    public var householdVersion: Int
    public var name: String?
    public var prefs: HouseholdPrefs
    /// The user who made the change, when known.
    public var userId: String?

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case householdVersion = "household_version"
        case name, prefs
        case userId = "user_id"
    }

    public init(householdId: UUID, householdVersion: Int, name: String?, prefs: HouseholdPrefs, userId: String?) {
        self.householdId = householdId
        self.householdVersion = householdVersion
        self.name = name
        self.prefs = prefs
        self.userId = userId
    }
}

extension HouseholdUpserted: RawReadablePayload {
    /// The `Codable` keys, in the order `read` takes their values.
    private static let keys = [CodingKeys.householdId, .householdVersion, .name, .prefs, .userId].map { Array($0.stringValue.utf8) }

    /// The `households` projection reads every upsert: the busiest reader of the busiest topic.
    public static func read(_ bytes: [UInt8], in range: Range<Int>) -> HouseholdUpserted? {
        guard let fields = RawJSON.fieldRanges(keys, inObjectAt: range.lowerBound, of: bytes),
              let householdId = fields[0].flatMap({ RawEnvelope.uuid(bytes[$0]) }),
              let householdVersion = fields[1].flatMap({ RawEnvelope.integer(bytes[$0]) }),
              let prefsRange = fields[3],
              let prefs = HouseholdPrefs.read(bytes, in: prefsRange),
              let name = optionalString(fields[2], bytes),
              let userId = optionalString(fields[4], bytes)
        else { return nil }
        return HouseholdUpserted(householdId: householdId, householdVersion: householdVersion, name: name, prefs: prefs, userId: userId)
    }

    /// Absent or null is `.some(nil)`; a string is its text; anything else nil.
    private static func optionalString(_ range: Range<Int>?, _ bytes: [UInt8]) -> String?? {
        guard let range else { return .some(nil) }
        let literal = bytes[range]
        if RawEnvelope.isNull(literal) { return .some(nil) }
        return RawEnvelope.string(literal).map { .some($0) }
    }
}

extension HouseholdPrefs {
    static func read(_ bytes: [UInt8], in range: Range<Int>) -> HouseholdPrefs? {
        guard let fields = RawJSON.fieldRanges(prefsKeys, inObjectAt: range.lowerBound, of: bytes),
              let adults = fields[0].flatMap({ RawEnvelope.integer(bytes[$0]) }),
              let kidsAges = fields[1].flatMap({ elements(in: $0, bytes, RawEnvelope.integer) }),
              let allergies = fields[2].flatMap({ elements(in: $0, bytes, RawEnvelope.string) }),
              let cuisines = fields[3].flatMap({ elements(in: $0, bytes, RawEnvelope.string) })
        else { return nil }
        return HouseholdPrefs(adults: adults, kidsAges: kidsAges, allergies: allergies, cuisines: cuisines)
    }

    private static let prefsKeys = [CodingKeys.adults, .kidsAges, .allergies, .cuisines].map { Array($0.stringValue.utf8) }

    private static func elements<T>(in range: Range<Int>, _ bytes: [UInt8], _ read: (ArraySlice<UInt8>) -> T?) -> [T]? {
        guard let ranges = RawJSON.elementRanges(ofArrayIn: range, of: bytes) else { return nil }
        var values: [T] = []
        values.reserveCapacity(ranges.count)
        for element in ranges {
            guard let value = read(bytes[element]) else { return nil }
            values.append(value)
        }
        return values
    }
}
