import Foundation
import HearthEvents
import Testing

/// A `JSONValue` number is a Double: integers up to 2^53 go through it unchanged, and one beyond
/// is refused rather than turned into its neighbour.
@Suite struct JSONValueIntegerTests {
    struct Counter: Codable { var value: Int64 }

    @Test func integersUpToTwoToTheFiftyThirdRoundTripExactly() throws {
        for value: Int64 in [0, -1, 1_732_000_000_000, 9_007_199_254_740_991, 9_007_199_254_740_992, -9_007_199_254_740_992] {
            let tree = try JSONValueEncoder().encode(Counter(value: value))
            #expect(tree["value"] == .number(Double(value)))
            let text = try JSONEncoder().encode(tree)
            let back = try JSONDecoder().decode(Counter.self, from: JSONEncoder().encode(try JSONDecoder().decode(JSONValue.self, from: text)))
            #expect(back.value == value)
        }
    }

    @Test func anIntegerBeyondTwoToTheFiftyThirdIsRefusedNotRounded() throws {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Counter(value: 9_007_199_254_740_993)) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Counter(value: Int64.min + 1)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data(#"{"value":9007199254740993}"#.utf8)) }
        // A large number that is not meant as an integer, and an exact power of two, still pass.
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(#"{"value":1.5e300}"#.utf8))["value"] == .number(1.5e300))
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(#"{"value":18014398509481984}"#.utf8))["value"] == .number(18_014_398_509_481_984))
    }
}
