import Foundation
@testable import HearthRuntime
import Testing

@Suite struct JSONBodyDiagnosisTests {
    static func nulPath(_ json: String) -> String? { JSONBodyDiagnosis.pathOfNULCharacter(in: Data(json.utf8)) }
    static func numberPath(_ json: String) -> String? { JSONBodyDiagnosis.pathOfNonIntegerNumber(in: Data(json.utf8)) }

    @Test func nulIsFoundInValuesKeysAndArraysByItsPath() {
        #expect(Self.nulPath(#"{"name":"Nul\u0000Name","prefs":{"adults":3}}"#) == "name")
        #expect(Self.nulPath(#"{"name":"ok","prefs":{"allergies":["nuts","egg\u0000"]}}"#) == "prefs.allergies[1]")
        #expect(Self.nulPath(#"{"prefs":{"bad\u0000key":1}}"#) == "prefs.bad\u{0}key")
        #expect(Self.nulPath(#""\u0000""#) == "body")
    }

    @Test func anEscapedBackslashBeforeU0000IsPlainText() {
        // `\\u0000` is a backslash followed by the text u0000; `\\\u0000` is a backslash and a NUL.
        #expect(Self.nulPath(#"{"name":"C:\\u0000"}"#) == nil)
        #expect(Self.nulPath(#"{"name":"C:\\\u0000"}"#) == "name")
        #expect(Self.nulPath(#"{"name":"plain","note":"u0000"}"#) == nil)
        #expect(Self.nulPath(#"{"name":"\u00001"}"#) == "name")
    }

    @Test func numbersNoIntegerCanHoldAreNamed() {
        #expect(Self.numberPath(#"{"prefs":{"adults":1.5}}"#) == "prefs.adults")
        #expect(Self.numberPath(#"{"prefs":{"adults":1e308}}"#) == "prefs.adults")
        #expect(Self.numberPath(#"{"prefs":{"kids_ages":[3,9223372036854775808]}}"#) == "prefs.kids_ages[1]")
        #expect(Self.numberPath(#"{"days":-9223372036854775809}"#) == "days")
    }

    @Test func wholeNumbersInRangeAndOtherValuesAreNotNamed() {
        #expect(Self.numberPath(#"{"a":9223372036854775807,"b":-9223372036854775808,"c":0,"d":1,"e":true,"f":"1.5","g":null}"#) == nil)
        #expect(Self.numberPath("not json") == nil)
    }
}
