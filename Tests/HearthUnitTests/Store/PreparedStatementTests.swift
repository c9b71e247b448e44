import Foundation
@testable import GatewayService
@testable import HearthStore
import PostgresNIO
import Testing

/// The statements prepared once per connection declare their parameter types twice: in
/// `bindingDataTypes` (for the prepare step) and through the values they bind. These must agree,
/// or Postgres would read a parameter as another type than the one sent.
@Suite struct PreparedStatementTests {
    struct Lookup: PreparedStatement {
        static let sql = "SELECT repeat($1, $2::int)"
        static let bindingDataTypes: [PostgresDataType] = [.text, .int8]
        typealias Row = String
        var name: String
        var count: Int
        var parameters: [any PostgresEncodable] { [name, count] }
    }

    @Test func parametersAreBoundInTheirDeclaredOrder() throws {
        let bindings = try Lookup(name: "tacos", count: 3).makeBindings()
        #expect(bindings.count == 2)
        var expected = PostgresBindings()
        expected.append("tacos")
        expected.append(3)
        #expect(bindings == expected)
    }

    @Test func theLibrarysStatementsBindTheTypesTheyDeclare() {
        let advance = OffsetStore.Advance(projection: "households", topics: ["households"], partitions: [0], expected: [4], next: [9])
        #expect(advance.parameters.map(\.psqlType) == OffsetStore.Advance.bindingDataTypes)
        let insert = EventLogProjection.Insert(
            topics: ["households"], partitions: [0], offsets: [7], ids: ["0b9f4f5e-6f5d-4c55-9f0e-2c0f3f0f7a10"], types: ["household.upserted"],
            versions: [1], keys: ["k"], correlations: ["c"], causations: [""], sources: ["gateway"], times: ["2026-11-24T00:00:00Z"],
            envelopes: ["{}"])
        #expect(insert.parameters.map(\.psqlType) == EventLogProjection.Insert.bindingDataTypes)
        #expect(insert.parameters.count == EventLogProjection.Insert.sql.components(separatedBy: "[]").count - 1)
    }
}
