import Foundation
@testable import HearthEvents
import Testing

/// `household.upserted` is read by hand on the projection path: it must give what `JSONDecoder`
/// gives for everything the encoder writes, and decline (so the decoder answers) anything else.
@Suite struct HouseholdUpsertedRawReadTests {
    static let samples: [HouseholdUpserted] = [
        HouseholdUpserted(
            householdId: UUID(), householdVersion: 1, name: nil,
            prefs: HouseholdPrefs(adults: 0, kidsAges: [], allergies: [], cuisines: []), userId: nil),
        HouseholdUpserted(
            householdId: UUID(), householdVersion: 123_456, name: "The Smiths",
            prefs: HouseholdPrefs(adults: 2, kidsAges: [0, 4, 17], allergies: ["peanut", "sesame"], cuisines: ["thai", "mexican"]),
            userId: "user-1"),
        HouseholdUpserted(
            householdId: UUID(), householdVersion: 7, name: "Quote \" back\\slash\ttab 🎲 Café",
            prefs: HouseholdPrefs(adults: 1, kidsAges: [3], allergies: ["tree \"nuts\"", "line\nbreak"], cuisines: ["crème brûlée", "a/b"]),
            userId: "ü-\\-user"),
    ]

    /// The payload's range in the encoded envelope, as the projection pipeline sees it.
    static func encoded(_ payload: HouseholdUpserted) throws -> (bytes: [UInt8], payload: Range<Int>) {
        let bytes = Array(try EventCatalogue.hearth.encode(Envelope(payload, correlationId: "c", source: "tests")))
        let raw = try #require(RawEnvelope(bytes))
        return (bytes, raw.payload)
    }

    @Test(arguments: samples)
    func readsWhatTheEncoderWritesAsTheDecoderDoes(payload: HouseholdUpserted) throws {
        let (bytes, range) = try Self.encoded(payload)
        let read = try #require(HouseholdUpserted.read(bytes, in: range))
        #expect(read == payload)
        #expect(read == (try JSONDecoder.hearth().decode(HouseholdUpserted.self, from: Data(bytes[range]))))
    }

    /// Hand-written payloads: spacing, key order, null and absent optionals, extra keys.
    @Test(arguments: [
        #"{ "prefs" : { "cuisines" : [ ] , "allergies" : [ "soy" ] , "kidsAges" : [ 2 , 5 ] , "adults" : 3 } , "household_version" : 4 , "household_id" : "0D3B8E6A-5A1F-4C2E-8F7D-2B9C4E1A6F30" }"#,
        #"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"name":null,"user_id":null,"prefs":{"adults":1,"kidsAges":[],"allergies":[],"cuisines":[],"extra":{"a":[1,2]}},"extra":true}"#,
        #"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"name":"caf\u00e9","prefs":{"adults":1,"kidsAges":[1],"allergies":["\"x\""],"cuisines":["y"]}}"#,
    ])
    func agreesWithTheDecoderOnOtherSpellings(text: String) throws {
        let bytes = Array(text.utf8)
        let read = try #require(HouseholdUpserted.read(bytes, in: 0..<bytes.count))
        #expect(read == (try JSONDecoder.hearth().decode(HouseholdUpserted.self, from: Data(bytes))))
    }

    /// What the hand reader declines goes to the decoder, which accepts it or says what is wrong.
    @Test(arguments: [
        (#"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":-2,"prefs":{"adults":1,"kidsAges":[],"allergies":[],"cuisines":[]}}"#, true),
        (#"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"prefs":{"adults":1,"kidsAges":[-1],"allergies":[],"cuisines":[]}}"#, true),
        (#"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"prefs":{"adults":"two","kidsAges":[],"allergies":[],"cuisines":[]}}"#, false),
        (#"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"prefs":{"adults":1,"kidsAges":[],"allergies":[3],"cuisines":[]}}"#, false),
        (#"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"prefs":{"adults":1,"kidsAges":[],"cuisines":[]}}"#, false),
        (#"{"household_id":"not-a-uuid","household_version":2,"prefs":{"adults":1,"kidsAges":[],"allergies":[],"cuisines":[]}}"#, false),
        (#"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"name":5,"prefs":{"adults":1,"kidsAges":[],"allergies":[],"cuisines":[]}}"#, false),
        (#"{"household_id":"0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30","household_version":2,"prefs":null}"#, false),
    ])
    func declinesAndTheCatalogueFallsBackToTheDecoder(text: String, decodable: Bool) throws {
        let bytes = Array(text.utf8)
        #expect(HouseholdUpserted.read(bytes, in: 0..<bytes.count) == nil)
        let envelope = Array(#"{"id":"\#(UUID().uuidString)","type":"household.upserted","version":1,"key":"k","occurred_at":"2026-11-24T01:00:00.000Z","correlation_id":"c","source":"tests","data":\#(text)}"#.utf8)
        let raw = try #require(RawEnvelope(envelope))
        if decodable {
            guard case .event(let event) = try EventCatalogue.hearth.decode(raw, of: envelope) else {
                Issue.record("not decoded as an event")
                return
            }
            #expect(event.payload as? HouseholdUpserted == (try JSONDecoder.hearth().decode(HouseholdUpserted.self, from: Data(bytes))))
        } else {
            #expect(throws: EventDecodingError.self) { try EventCatalogue.hearth.decode(raw, of: envelope) }
        }
    }

    @Test func arrayElementsAreFoundOnlyInAWholeArray() {
        let text = Array(#"[ 1 , "a,]" , [2, 3] , {"k": [4]} ]"#.utf8)
        let ranges = RawJSON.elementRanges(ofArrayIn: 0..<text.count, of: text)
        #expect(ranges?.map { String(decoding: text[$0], as: UTF8.self) } == ["1", #""a,]""#, "[2, 3]", #"{"k": [4]}"#])
        #expect(RawJSON.elementRanges(ofArrayIn: 0..<(text.count - 1), of: text) == nil)
        #expect(RawJSON.elementRanges(ofArrayIn: 0..<2, of: Array("[]".utf8)) == [])
        #expect(RawJSON.elementRanges(ofArrayIn: 0..<5, of: Array("[1,]x".utf8)) == nil)
        #expect(RawJSON.elementRanges(ofArrayIn: 0..<3, of: Array("{ }".utf8)) == nil)
        // An array followed by more text: its range ends at its bracket.
        let inObject = Array(#"{"a": [ 1 ] , "b": 2}"#.utf8)
        #expect(RawJSON.elementRanges(ofArrayIn: 6..<11, of: inObject)?.count == 1)
    }
}
