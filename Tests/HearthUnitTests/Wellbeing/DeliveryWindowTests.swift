import Foundation
import HearthDomain
import Testing

@Suite struct DeliveryWindowTests {
    /// An instant written as UTC, `2026-03-29T01:00:00Z` (fractions allowed).
    static func utc(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.date(from: text)!
    }

    static func window(_ start: String, _ end: String, _ zone: String) throws -> DeliveryWindow {
        try DeliveryWindow.parse(start: start, end: end, timeZone: zone)
    }

    @Test func startIsInsideAndEndIsNot() throws {
        // Paris in January is UTC+1: 08:00 local is 07:00Z, 21:00 local is 20:00Z.
        let window = DeliveryWindow.standard(in: TimeZone(identifier: "Europe/Paris")!)
        #expect(window.start == "08:00" && window.end == "21:00" && window.timeZone == "Europe/Paris")
        #expect(!window.contains(Self.utc("2026-01-15T06:59:59Z")))
        #expect(window.contains(Self.utc("2026-01-15T07:00:00Z")))
        #expect(window.contains(Self.utc("2026-01-15T19:59:59Z")))
        #expect(!window.contains(Self.utc("2026-01-15T20:00:00Z")))
        #expect(!window.crossesMidnight)
    }

    @Test func windowsOverMidnight() throws {
        // 22:00–07:00 in Paris (UTC+1 in January).
        let window = try Self.window("22:00", "07:00", "Europe/Paris")
        #expect(window.crossesMidnight)
        #expect(!window.contains(Self.utc("2026-01-15T20:59:00Z")))
        #expect(window.contains(Self.utc("2026-01-15T21:00:00Z")))
        #expect(window.contains(Self.utc("2026-01-15T23:30:00Z")))
        #expect(window.contains(Self.utc("2026-01-16T05:59:59Z")))
        #expect(!window.contains(Self.utc("2026-01-16T06:00:00Z")))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-01-15T12:00:00Z")) == Self.utc("2026-01-15T21:00:00Z"))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-01-15T23:00:00Z")) == Self.utc("2026-01-15T23:00:00Z"))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-01-16T06:00:00Z")) == Self.utc("2026-01-16T21:00:00Z"))
    }

    @Test func nextOpening() throws {
        let window = DeliveryWindow.standard(in: TimeZone(identifier: "Europe/Paris")!)
        let inside = Self.utc("2026-01-15T12:34:56Z")
        #expect(window.nextOpening(atOrAfter: inside) == inside)
        // 06:00 local: today at 08:00. 21:30 local: tomorrow at 08:00.
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-01-15T05:00:00Z")) == Self.utc("2026-01-15T07:00:00Z"))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-01-15T20:30:00Z")) == Self.utc("2026-01-16T07:00:00Z"))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-01-15T20:00:00Z")) == Self.utc("2026-01-16T07:00:00Z"))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-01-15T06:59:59.500Z")) == Self.utc("2026-01-15T07:00:00Z"))
    }

    @Test func theZoneDecides() throws {
        // 12:00Z is 13:00 in Paris, 21:00 in Tokyo (the end, so outside) and 04:00 in Los Angeles.
        let noon = Self.utc("2026-01-15T12:00:00Z")
        #expect(DeliveryWindow.standard(in: TimeZone(identifier: "Europe/Paris")!).contains(noon))
        #expect(!DeliveryWindow.standard(in: TimeZone(identifier: "Asia/Tokyo")!).contains(noon))
        #expect(!DeliveryWindow.standard(in: TimeZone(identifier: "America/Los_Angeles")!).contains(noon))
        // Los Angeles (UTC-8): its next 08:00 is 16:00Z.
        #expect(DeliveryWindow.standard(in: TimeZone(identifier: "America/Los_Angeles")!).nextOpening(atOrAfter: noon)
            == Self.utc("2026-01-15T16:00:00Z"))
    }

    @Test func londonSpringForward() throws {
        // 29 March 2026: at 01:00Z the clock goes from 01:00 GMT to 02:00 BST; 01:30 does not exist.
        let window = try Self.window("01:30", "06:00", "Europe/London")
        #expect(!window.contains(Self.utc("2026-03-29T00:59:59Z")))
        #expect(window.contains(Self.utc("2026-03-29T01:00:00Z")))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-03-29T00:00:00Z")) == Self.utc("2026-03-29T01:00:00Z"))
        // The standard window opens at 08:00 BST, 07:00Z, the morning after 21:00 GMT.
        let standard = DeliveryWindow.standard(in: TimeZone(identifier: "Europe/London")!)
        #expect(standard.nextOpening(atOrAfter: Self.utc("2026-03-28T21:00:00Z")) == Self.utc("2026-03-29T07:00:00Z"))
    }

    @Test func londonFallBack() throws {
        // 25 October 2026: at 01:00Z the clock goes from 02:00 BST back to 01:00 GMT, so 01:30 is
        // both 00:30Z and 01:30Z. The window opens at the first.
        let window = try Self.window("01:30", "06:00", "Europe/London")
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-10-25T00:00:00Z")) == Self.utc("2026-10-25T00:30:00Z"))
        #expect(window.contains(Self.utc("2026-10-25T00:59:59Z")))
        #expect(!window.contains(Self.utc("2026-10-25T01:00:00Z")))
        #expect(window.contains(Self.utc("2026-10-25T01:30:00Z")))
    }

    @Test func newYorkSpringForward() throws {
        // 8 March 2026: at 07:00Z the clock goes from 02:00 EST to 03:00 EDT.
        let window = try Self.window("02:30", "08:00", "America/New_York")
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-03-08T05:00:00Z")) == Self.utc("2026-03-08T07:00:00Z"))
        // A window wholly inside the skipped hour has no time that day: it next opens on the 9th,
        // 02:10 EDT.
        let skipped = try Self.window("02:10", "02:50", "America/New_York")
        #expect(skipped.nextOpening(atOrAfter: Self.utc("2026-03-08T05:00:00Z")) == Self.utc("2026-03-09T06:10:00Z"))
        // 08:00 EDT on the 8th is 12:00Z, an hour earlier in UTC than the day before.
        let standard = DeliveryWindow.standard(in: TimeZone(identifier: "America/New_York")!)
        #expect(standard.nextOpening(atOrAfter: Self.utc("2026-03-07T14:00:00Z")) == Self.utc("2026-03-07T14:00:00Z"))
        #expect(standard.nextOpening(atOrAfter: Self.utc("2026-03-08T03:00:00Z")) == Self.utc("2026-03-08T12:00:00Z"))
    }

    @Test func newYorkFallBack() throws {
        // 1 November 2026: at 06:00Z the clock goes from 02:00 EDT back to 01:00 EST. 01:30 is
        // 05:30Z (EDT) and 06:30Z (EST).
        let window = try Self.window("01:30", "03:00", "America/New_York")
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-11-01T04:00:00Z")) == Self.utc("2026-11-01T05:30:00Z"))
        // 06:10Z reads 01:10 EST, outside; the clock reaches 01:30 again at 06:30Z.
        #expect(!window.contains(Self.utc("2026-11-01T06:10:00Z")))
        #expect(window.nextOpening(atOrAfter: Self.utc("2026-11-01T06:10:00Z")) == Self.utc("2026-11-01T06:30:00Z"))
        // A window 00:30–01:15: 05:20Z reads 01:20 EDT, outside; at 06:00Z the clock falls back
        // to 01:00, inside.
        let early = try Self.window("00:30", "01:15", "America/New_York")
        #expect(early.nextOpening(atOrAfter: Self.utc("2026-11-01T05:20:00Z")) == Self.utc("2026-11-01T06:00:00Z"))
    }

    @Test func badInputsNameTheField() {
        func failure(_ start: String, _ end: String, _ zone: String) -> DeliveryWindowError? {
            do {
                _ = try DeliveryWindow.parse(start: start, end: end, timeZone: zone)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure("25:00", "21:00", "Europe/Paris") == .badTime(field: .start, value: "25:00"))
        #expect(failure("08:00", "7:5x", "Europe/Paris") == .badTime(field: .end, value: "7:5x"))
        for bad in ["24:00", "7:05", "07:60", "0700", "07:00:00", "", " 7:00", "ab:cd", "０７:００"] {
            #expect(failure(bad, "21:00", "Europe/Paris")?.field == .start, "\(bad)")
        }
        #expect(failure("08:00", "21:00", "Mars/Olympus_Mons") == .unknownTimeZone(value: "Mars/Olympus_Mons"))
        #expect(failure("08:00", "21:00", "")?.field == .timeZone)
        #expect(failure("08:00", "21:00", "Mars/Olympus_Mons")?.field.rawValue == "time_zone")
        let same = failure("08:00", "08:00", "Europe/Paris")
        #expect(same == .sameStartAndEnd)
        #expect(same?.reason == "start and end are the same")
        #expect(same?.description == "end: start and end are the same")
        // The first bad field is the one reported.
        #expect(failure("99:99", "21:00", "Nowhere")?.field == .start)
        #expect(failure("25:00", "21:00", "Europe/Paris")?.description.hasPrefix("start: ") == true)
    }

    @Test func jsonUsesTheSettingsKeys() throws {
        let window = try Self.window("22:00", "07:00", "America/New_York")
        let data = try JSONEncoder().encode(window)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(object == ["start": "22:00", "end": "07:00", "time_zone": "America/New_York"])
        #expect(try JSONDecoder().decode(DeliveryWindow.self, from: data) == window)

        let bad = Data(#"{"start": "08:00", "end": "21:00", "time_zone": "Atlantis/Capital"}"#.utf8)
        do {
            _ = try JSONDecoder().decode(DeliveryWindow.self, from: bad)
            Issue.record("an unknown zone was accepted")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.last?.stringValue == "time_zone")
            #expect(context.debugDescription.contains("time_zone"))
        }
    }
}
