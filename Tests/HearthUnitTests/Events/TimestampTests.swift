import Foundation
import HearthEvents
import Testing

@Suite struct TimestampTests {
    @Test func formatsRFC3339UTCWithMilliseconds() {
        let date = Date(timeIntervalSince1970: 1_795_219_200.123)
        #expect(Timestamp.format(date) == "2026-11-21T00:00:00.123Z")
    }

    @Test(arguments: ["2026-11-23T10:15:30Z", "2026-11-23T10:15:30.5Z", "2026-11-23T11:15:30+01:00"])
    func parsesCommonForms(_ text: String) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - 1_795_428_930) < 1)
    }

    @Test(arguments: [
        "2026-11-23t10:15:30z", "2026-11-23T09:15:30.000-01:00", "2026-11-23T15:45:30.2+05:30", "2026-11-23T10:15:30.123456789+00:00",
    ])
    func parsesLowerCaseLettersOffsetsAndLongFractions(_ text: String) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - 1_795_428_930) < 1, "\(text)")
    }

    @Test func anOffsetIsSubtracted() {
        #expect(Timestamp.parse("2026-11-23T00:30:00+01:00") == Timestamp.parse("2026-11-22T23:30:00Z"))
        #expect(Timestamp.parse("2026-11-22T23:30:00.250-00:30") == Timestamp.parse("2026-11-23T00:00:00.250Z"))
    }

    /// Fields out of range used to be moved on (25:00 became 01:00 the next day).
    @Test(arguments: [
        "2027-01-01T25:00:00Z", "2027-01-01T10:60:00Z", "2027-01-01T10:00:60Z", "2027-02-29T10:00:00Z", "2027-01-00T10:00:00Z",
        "2027-01-01T10:00:00+0100", "2027-01-01T10:00:00+24:00", "2027-01-01T10:00:00+01:60", "2027-01-01T10:00:00.Z",
        "2027-01-01T10:00:00.1234567890Z", "2027-01-01T10:00:00", "2027-01-01T10:00:00Z ", "2027-01-01T10:00Z",
    ])
    func rejectsFieldsOutOfRangeAndOtherZoneForms(_ text: String) {
        #expect(Timestamp.parse(text) == nil, "\(text)")
    }

    @Test(arguments: ["", "yesterday", "2026-13-01T00:00:00Z", "2026-11-23 10:15:30"])
    func rejectsOtherText(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}
