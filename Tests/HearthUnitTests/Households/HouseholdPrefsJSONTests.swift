import Foundation
import HearthEvents
import Testing

@Suite struct HouseholdPrefsJSONTests {
    static let samples: [HouseholdPrefs] = [
        HouseholdPrefs(adults: 0, kidsAges: [], allergies: [], cuisines: []),
        HouseholdPrefs(adults: 2, kidsAges: [0, 4, 17], allergies: ["peanut", "sesame"], cuisines: ["thai"]),
        HouseholdPrefs(adults: 1, kidsAges: [3], allergies: ["say \"nuts\"", #"back\slash"#, "tab\there", "line\nbreak", "\u{01}bell"],
                       cuisines: ["crème brûlée", "🍜 noodles", "a/b"]),
    ]

    @Test(arguments: samples)
    func readsBackAsTheSamePreferences(prefs: HouseholdPrefs) throws {
        let decoded = try JSONDecoder().decode(HouseholdPrefs.self, from: Data(prefs.jsonText.utf8))
        #expect(decoded == prefs)
    }

    @Test(arguments: samples)
    func hasTheKeysAndValuesJSONEncoderWrites(prefs: HouseholdPrefs) throws {
        let handWritten = try JSONSerialization.jsonObject(with: Data(prefs.jsonText.utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(prefs)) as? NSDictionary
        #expect(handWritten != nil)
        #expect(handWritten == encoded)
    }
}
