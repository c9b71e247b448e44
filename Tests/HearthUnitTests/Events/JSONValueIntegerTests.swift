import Foundation
import HearthEvents
import Testing

/// A `JSONValue` number is a Double: integers up to 2^53 go through it unchanged, and one a Double
/// cannot hold is refused where Hearth writes it rather than turned into its neighbour.
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
        // An integer a Double holds exactly passes, however large, and so does a large Double
        // written in exponent form, which must read back as what was written.
        #expect(try JSONValueEncoder().encode(Counter(value: 1 << 60))["value"] == .number(Double(1 << 60)))
        struct Measure: Codable { var value: Double }
        let large = try JSONEncoder().encode(Measure(value: 1.152921504606847e18))
        #expect(try JSONDecoder().decode(JSONValue.self, from: large)["value"] == .number(1.152921504606847e18))
    }
}
