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

    @Test(arguments: ["", "yesterday", "2026-13-01T00:00:00Z", "2026-11-23 10:15:30"])
    func rejectsOtherText(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}
