import Foundation
import HearthDomain
import Testing

@Suite struct HouseholdMemberRulesTests {
    func day(_ text: String) -> CalendarDay { CalendarDay(isoDate: text)! }

    @Test func ageCountsCompletedYears() {
        let born = day("2018-06-15")
        #expect(HouseholdMemberRules.age(bornOn: born, on: day("2025-06-14")) == 6)
        #expect(HouseholdMemberRules.age(bornOn: born, on: day("2025-06-15")) == 7)
        #expect(HouseholdMemberRules.age(bornOn: born, on: day("2025-12-31")) == 7)
        #expect(HouseholdMemberRules.age(bornOn: born, on: born) == 0)
    }

    @Test func leapDayBirthdaysComeOnTheFirstOfMarchInCommonYears() {
        let born = day("2020-02-29")
        #expect(HouseholdMemberRules.age(bornOn: born, on: day("2023-02-28")) == 2)
        #expect(HouseholdMemberRules.age(bornOn: born, on: day("2023-03-01")) == 3)
        #expect(HouseholdMemberRules.age(bornOn: born, on: day("2024-02-29")) == 4)
    }

    @Test func birthdatesMustBeRealPastDays() throws {
        let today = day("2025-03-10")
        #expect(try HouseholdMemberRules.birthdate("2025-03-10", today: today) == today)
        for bad in ["2025-03-11", "2023-02-29", "2020-13-01", "10/03/2020", "2020-3-1", "1850-01-01"] {
            #expect(throws: FieldViolation.self, "\(bad)") { try HouseholdMemberRules.birthdate(bad, today: today) }
        }
    }

    @Test func rolesAndNames() throws {
        #expect(try HouseholdMemberRules.role("caregiver") == .caregiver)
        #expect(throws: FieldViolation.self) { try HouseholdMemberRules.role("butler") }
        #expect(try HouseholdMemberRules.normalizedName("  Mia ") == "Mia")
        #expect(throws: FieldViolation.self) { try HouseholdMemberRules.normalizedName(String(repeating: "x", count: 81)) }
        // One user-visible character padded with 1,500 combining marks: ~3 KB, which overflowed
        // a Postgres index (profile constraints) once the name reached a profile fact.
        let padded = "zed" + String(repeating: "\u{0301}", count: 1500)
        #expect(padded.count == 3)
        #expect(throws: FieldViolation.self) { try HouseholdMemberRules.normalizedName(padded) }
        #expect(try HouseholdMemberRules.normalizedName("Zoë") == "Zoë")
    }

    @Test func inviteCodesAreReadForgivingly() {
        let code = InviteCode.generate()
        #expect(code.count == InviteCode.length)
        #expect(InviteCode.normalized(code) == code)
        #expect(InviteCode.normalized(code.lowercased()) == code)
        #expect(InviteCode.normalized("abcd-efgh-jkmn") == "ABCDEFGHJKMN")
        #expect(InviteCode.normalized("OIL0 abcd efgh") == "0110ABCDEFGH")
        #expect(InviteCode.normalized("ABCDEFGHJKM") == nil, "too short")
        #expect(InviteCode.normalized("ABCDEFGHJKMU") == nil, "U is not in the alphabet")
        #expect(InviteCode.generate() != InviteCode.generate())
    }
}
