import Foundation
@testable import HearthEvents
import Testing

/// The raw metadata reader must agree with Foundation's decoder on everything the encoder writes,
/// and refuse (so the decoder reports) what it cannot read.
@Suite struct RawEnvelopeTests {
    static func household(_ name: String?) -> HouseholdUpserted {
        HouseholdUpserted(
            householdId: UUID(), householdVersion: 3, name: name,
            prefs: HouseholdPrefs(adults: 2, kidsAges: [4], allergies: ["sesame"], cuisines: ["thai"]), userId: "user-1")
    }

    static func bytes<P: EventPayload>(_ envelope: Envelope<P>) throws -> [UInt8] {
        Array(try EventCatalogue.hearth.encode(envelope))
    }

    @Test func readsWhatTheEncoderWritesExactlyAsTheDecoderDoes() throws {
        let names: [String?] = [nil, "The Smiths", "Quote \" backslash \\ tab \t newline \n", "Café Ünïcödé 🎲 — ß", ""]
        for (index, name) in names.enumerated() {
            let envelope = Envelope(
                Self.household(name), correlationId: "corr-\(index) \"quoted\"", causationId: index.isMultiple(of: 2) ? nil : "cause/\(index)",
                source: "tests", occurredAt: Date(timeIntervalSince1970: 1_700_000_000.123 + Double(index) * 86_400.5))
            let bytes = try Self.bytes(envelope)
            let raw = try #require(RawEnvelope(bytes), "not read: \(String(decoding: bytes, as: UTF8.self))")
            let decoded = try JSONDecoder.hearth().decode(EventMetadata.self, from: Data(bytes))
            #expect(raw.metadata == decoded)
            #expect(raw.metadata == envelope.metadata)
            guard case .event(let event) = try EventCatalogue.hearth.decode(raw, of: bytes) else {
                Issue.record("not decoded as an event")
                continue
            }
            #expect(event.payload as? HouseholdUpserted == envelope.data)
            #expect(event.metadata == envelope.metadata)
        }
    }

    @Test func anUnknownTypeOrNewerVersionIsReportedNotDecoded() throws {
        var envelope = Envelope(Self.household("x"), correlationId: "c", source: "tests")
        envelope.metadata.type = "household.renamed"
        guard case .unknownType(let metadata) = try EventCatalogue.hearth.decode(try #require(RawEnvelope(try Self.bytes(envelope))), of: try Self.bytes(envelope)) else {
            Issue.record("unknown type not reported")
            return
        }
        #expect(metadata.type == "household.renamed")
        envelope.metadata.type = HouseholdUpserted.eventType
        envelope.metadata.version = HouseholdUpserted.version + 1
        let newer = try Self.bytes(envelope)
        guard case .newerVersion(_, let known) = try EventCatalogue.hearth.decode(try #require(RawEnvelope(newer)), of: newer) else {
            Issue.record("newer version not reported")
            return
        }
        #expect(known == HouseholdUpserted.version)
    }

    @Test func refusesWhatItCannotRead() {
        let bad = [
            "", "not json", "{", "[]", #"{"id":"x"}"#,
            #"{"id":"6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B10","type":"a","version":"1","key":"k","occurred_at":"2026-01-01T00:00:00.000Z","correlation_id":"c","source":"s","data":{}}"#,
            "{\"id\":\"6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B10\",\"type\":\"a\u{01}\",\"version\":1,\"key\":\"k\",\"occurred_at\":\"2026-01-01T00:00:00.000Z\",\"correlation_id\":\"c\",\"source\":\"s\",\"data\":{}}",
            #"{"id":"6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B10","type":"a","version":1,"key":"k","occurred_at":"yesterday","correlation_id":"c","source":"s","data":{}}"#,
            #"{"id":"6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B10","type":"a","version":1,"key":"k","occurred_at":"2026-01-01T00:00:00.000Z","correlation_id":"c","source":"s"}"#,
        ]
        for text in bad { #expect(RawEnvelope(Array(text.utf8)) == nil, "read: \(text)") }
    }

    @Test func theHandWrittenUUIDReaderAgreesWithFoundation() {
        for _ in 0..<500 {
            let id = UUID()
            for text in [id.uuidString, id.uuidString.lowercased()] {
                #expect(RawEnvelope.uuid(ArraySlice(Array("\"\(text)\"".utf8))) == id, "\(text)")
            }
        }
        let bad = [
            "6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B10", "\"6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B1\"", "\"6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B100\"",
            "\"6B1F9F4E2C55-4D8B-9A57-3E0C1D2A7B10-\"", "\"6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B1G\"", "\"{B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B10}\"",
        ]
        for text in bad { #expect(RawEnvelope.uuid(ArraySlice(Array(text.utf8))) == nil, "\(text)") }
    }

    @Test func fieldRangesAnswerInTheOrderOfTheKeys() throws {
        let text = #"{ "b" : [1, {"a": 2}], "a":"x\"y", "c": null ,"d":-1.5e3}"#
        let bytes = Array(text.utf8)
        let ranges = try #require(RawJSON.fieldRanges([Array("a".utf8), Array("missing".utf8), Array("d".utf8), Array("b".utf8)], of: bytes))
        let values = ranges.map { $0.map { String(decoding: bytes[$0], as: UTF8.self) } }
        #expect(values == [#""x\"y""#, nil, "-1.5e3", #"[1, {"a": 2}]"#])
        #expect(RawJSON.fields(["a", "c"], of: bytes) == ["a": ranges[0]!, "c": try #require(RawJSON.fieldRanges([Array("c".utf8)], of: bytes)?[0])])
        #expect(RawJSON.fieldRanges([Array("a".utf8)], of: Array("[1]".utf8)) == nil)
    }

    @Test func theHandWrittenTimestampReaderAgreesWithTheFormatStyles() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)) / 1000)
            let text = Timestamp.format(date)
            #expect(Timestamp.parse(text) == Timestamp.rounded(date), "\(text)")
        }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        for text in ["2024-02-29T23:59:59.999Z", "2026-11-23T07:00:00.5Z", "2026-11-23T07:00:00.123456Z", "1999-12-31T23:59:59.000Z"] {
            #expect(Timestamp.parse(text) == Timestamp.rounded(try! style.parse(text)), "\(text)")
        }
        #expect(Timestamp.parse("2026-11-23T07:00:00Z") == Date(timeIntervalSince1970: 1_795_417_200))
        // Offsets are read by the format styles.
        #expect(Timestamp.parse("2026-11-23T09:00:00+02:00") == Date(timeIntervalSince1970: 1_795_417_200))
        // (Foundation's styles, the fallback, roll "February 29th" of a common year over to March.)
        for text in ["2026-13-01T00:00:00Z", "2026-11-23T07:00:00.Z", "2026-11-23 07:00:00Z", "2026-11-23T07:00Z"] {
            #expect(Timestamp.parse(text) == nil, "\(text)")
        }
    }
}
