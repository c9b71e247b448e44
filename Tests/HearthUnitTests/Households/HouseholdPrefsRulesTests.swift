import HearthDomain
import HearthEvents
import Testing

@Suite struct HouseholdPrefsRulesTests {
    @Test func normalisesLists() throws {
        let prefs = try HouseholdPrefsRules.normalized(
            HouseholdPrefs(adults: 2, kidsAges: [3], allergies: [" Peanut", "peanut", "SESAME "], cuisines: ["Thai"]))
        #expect(prefs.allergies == ["peanut", "sesame"])
        #expect(prefs.cuisines == ["thai"])
    }

    @Test func namesTheFieldOfANegativeAge() {
        #expect(throws: FieldViolation(field: "prefs.kidsAges[1]", message: "prefs.kidsAges[1] must be an age between 0 and 25")) {
            try HouseholdPrefsRules.normalized(HouseholdPrefs(adults: 2, kidsAges: [4, -1], allergies: [], cuisines: []))
        }
    }

    @Test func rejectsImpossibleCounts() {
        #expect(throws: FieldViolation.self) {
            try HouseholdPrefsRules.normalized(HouseholdPrefs(adults: -1, kidsAges: [], allergies: [], cuisines: []))
        }
        #expect(throws: FieldViolation.self) {
            try HouseholdPrefsRules.normalized(HouseholdPrefs(adults: 2, kidsAges: Array(repeating: 3, count: 21), allergies: [], cuisines: []))
        }
        #expect(throws: FieldViolation.self) {
            try HouseholdPrefsRules.normalized(HouseholdPrefs(adults: 2, kidsAges: [], allergies: [" "], cuisines: []))
        }
    }

    @Test func blankNamesAreRejectedAndOthersTrimmed() throws {
        #expect(try HouseholdPrefsRules.normalizedName("  The Rivers ") == "The Rivers")
        #expect(try HouseholdPrefsRules.normalizedName(nil) == nil)
        #expect(throws: FieldViolation.self) { try HouseholdPrefsRules.normalizedName("   ") }
    }

    @Test func mergeAddsListEntriesAndReplacesCounts() {
        let current = HouseholdPrefs(adults: 2, kidsAges: [3], allergies: ["peanut"], cuisines: ["thai"])
        let update = HouseholdPrefs(adults: 1, kidsAges: [4], allergies: ["sesame", "peanut"], cuisines: [])
        let merged = HouseholdPrefsRules.merged(current, with: update)
        #expect(merged == HouseholdPrefs(adults: 1, kidsAges: [4], allergies: ["peanut", "sesame"], cuisines: ["thai"]))
    }
}
