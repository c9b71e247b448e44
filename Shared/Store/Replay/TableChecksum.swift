import Logging
import PostgresNIO

/// An order-independent fingerprint of a projection's tables: row count and a sum of row hashes.
/// Two tables with the same rows (in any physical order) have the same checksum.
public struct TableChecksum: Sendable, Equatable, CustomStringConvertible {
    public var tables: [String: (rows: Int64, digest: String)]

    public static func == (lhs: TableChecksum, rhs: TableChecksum) -> Bool {
        lhs.description == rhs.description
    }

    public var description: String {
        tables.keys.sorted().map { "\($0)=\(tables[$0]!.rows):\(tables[$0]!.digest)" }.joined(separator: " ")
    }

    public static func compute(tables: [String], schema: String = "public", client: PostgresClient, logger: Logger) async throws -> TableChecksum {
        try await client.withConnection { connection in
            try await compute(tables: tables, schema: schema, connection: connection, logger: logger)
        }
    }

    public static func compute(tables: [String], schema: String, connection: PostgresConnection, logger: Logger) async throws -> TableChecksum {
        var result: [String: (rows: Int64, digest: String)] = [:]
        for table in tables {
            let sql = """
                SELECT count(*)::bigint, coalesce(sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint), 0)::text
                FROM \(SQLIdentifier.quoted(schema)).\(SQLIdentifier.quoted(table)) t
                """
            for try await (rows, sum) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode((Int64, String).self) {
                result[table] = (rows, sum)
            }
        }
        return TableChecksum(tables: result)
    }
}

/// Identifiers that come from code (table and schema names), checked and quoted before they
/// are spliced into SQL that cannot take them as bind parameters.
public enum SQLIdentifier {
    public static func quoted(_ name: String) -> String {
        precondition(!name.isEmpty && name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) },
                     "not a plain lower-case identifier: \(name)")
        return "\"\(name)\""
    }
}
