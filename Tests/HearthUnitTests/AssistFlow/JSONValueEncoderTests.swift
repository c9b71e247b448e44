import Foundation
import HearthDomain
import HearthEvents
import Testing

@Suite struct JSONValueEncoderTests {
    /// The tree must be exactly what encoding to text and decoding it back gives.
    func viaText<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    struct Sample: Codable {
        enum Kind: String, Codable { case a, b }
        struct Inner: Codable { var id: UUID; var tags: [String]; var ratio: Float }
        var name: String
        var count: Int
        var small: Int8
        var big: UInt64
        var ratio: Double
        var flag: Bool
        var missing: String?
        var present: String?
        var kind: Kind
        var inner: [Inner]
        var map: [String: [Int]]
        var nested: [[Bool?]]
        var json: JSONValue
        var day: CalendarDay
    }

    @Test func matchesTheTextRoundTrip() throws {
        let sample = Sample(
            name: "dinner \"quoted\"", count: -3, small: 7, big: 1 << 40, ratio: 0.25, flag: true, missing: nil, present: "x",
            kind: .b, inner: [.init(id: UUID(), tags: ["a", "b"], ratio: 1.5), .init(id: UUID(), tags: [], ratio: 0)],
            map: ["k": [1, 2], "empty": []], nested: [[true, nil], []],
            json: .object(["a": .array([.null, .number(1), .string("s")])]), day: CalendarDay(year: 2026, month: 3, day: 2)!)
        #expect(try JSONValueEncoder().encode(sample) == viaText(sample))
    }

    @Test func encodesPlannerOutput() throws {
        let plan = try MealPlanner.bundled().plan(MealPlanRequest(
            prefs: HouseholdPrefs(adults: 2, kidsAges: [4, 9], allergies: ["peanuts"], cuisines: ["italian"]), days: 7,
            startDate: CalendarDay(year: 2026, month: 3, day: 2)!, goal: "quick dinners"))
        let groceries = GroceryListBuilder(catalogue: try RecipeCatalogue.bundled()).build(for: plan)
        #expect(try JSONValueEncoder().encode(plan) == viaText(plan))
        #expect(try JSONValueEncoder().encode(groceries) == viaText(groceries))
        #expect(try JSONValueEncoder().encode("top-level") == .string("top-level"))
        #expect(try JSONValueEncoder().encode([1, 2]) == .array([.number(1), .number(2)]))
    }

    @Test func aNumberNoDoubleHoldsIsReportedAsSuchNotAsAWrongType() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data("1e999".utf8)) }
        do {
            _ = try JSONDecoder().decode(JSONValue.self, from: Data("1e999".utf8))
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("out of range"))
        } catch {
            Issue.record("expected dataCorrupted, got \(error)")
        }
        #expect((try? JSONDecoder().decode(JSONValue.self, from: Data("true".utf8))) == .bool(true))
    }
}
