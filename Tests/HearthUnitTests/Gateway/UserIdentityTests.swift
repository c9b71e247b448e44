import Foundation
import HearthDomain
import Testing

@Suite struct UserIdentityTests {
    @Test func nameBasedUUIDsMatchTheRFCVersion5Vector() {
        // RFC 9562 appendix: UUIDv5 of "www.example.com" in the DNS namespace.
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(NameBasedUUID.make(namespace: dns, name: "www.example.com") == UUID(uuidString: "2ed6657d-e927-568b-95e1-2665a8aea6a2"))
    }

    @Test func aSubjectAlwaysMapsToTheSameUser() {
        let first = UserIdentity.userId(provider: .apple, subject: "001234.abcdef.0987")
        #expect(UserIdentity.userId(provider: .apple, subject: "001234.abcdef.0987") == first)
        #expect(UserIdentity.userId(provider: .apple, subject: "001234.abcdef.0988") != first)
        #expect(UserIdentity.userId(provider: .dev, subject: "001234.abcdef.0987") != first, "providers do not share subjects")
        #expect(first.uuidString.lowercased().dropFirst(14).first == "5", "a version 5 UUID")
    }

    @Test func firstHouseholdIdFollowsFromTheUser() {
        let user = UUID()
        #expect(UserIdentity.firstHouseholdId(of: user) == UserIdentity.firstHouseholdId(of: user))
        #expect(UserIdentity.firstHouseholdId(of: user) != UserIdentity.firstHouseholdId(of: UUID()))
        #expect(UserIdentity.firstHouseholdId(of: user) != user)
    }

    @Test func devNamesIgnoreCaseAndSpaces() {
        #expect(UserIdentity.devSubject(forName: " Alice ") == UserIdentity.devSubject(forName: "alice"))
    }

    @Test func deviceIdsMustBeLongAndPlain() throws {
        #expect(try UserIdentity.deviceSubject("3F2504E0-4F89-11D3-9A0C-0305E82C3301") == "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(throws: FieldViolation.self) { try UserIdentity.deviceSubject("short") }
        #expect(throws: FieldViolation.self) { try UserIdentity.deviceSubject("has spaces in it, sadly") }
        #expect(throws: FieldViolation.self) { try UserIdentity.deviceSubject(String(repeating: "a", count: 129)) }
    }

    @Test func profileFieldsAreValidated() throws {
        #expect(try UserProfileRules.timeZone("Europe/Berlin") == "Europe/Berlin")
        #expect(throws: FieldViolation(field: "time_zone", message: "time_zone must be an IANA time zone such as Europe/Berlin")) {
            try UserProfileRules.timeZone("Mars/Olympus_Mons")
        }
        // Abbreviations and offsets are not IANA names, though Foundation reads them.
        for notIANA in ["EST", "GMT+05:00", "UTC+1"] {
            #expect(throws: FieldViolation.self, "\(notIANA)") { try UserProfileRules.timeZone(notIANA) }
        }
        #expect(try UserProfileRules.locale("en_GB") == "en-GB")
        #expect(try UserProfileRules.locale("zh-Hant-TW") == "zh-Hant-TW")
        #expect(throws: FieldViolation.self) { try UserProfileRules.locale("english please") }
        #expect(try UserProfileRules.displayName("  Ada  ") == "Ada")
        #expect(throws: FieldViolation.self) { try UserProfileRules.displayName("   ") }
    }
}
