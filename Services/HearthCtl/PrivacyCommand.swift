import ArgumentParser
import Foundation
import HearthEvents
import HearthPrivacy
import Logging
import PostgresNIO

/// `hearthctl privacy status <user>`: what Hearth holds about one user, and under which keys: the
/// account's deletion state, the data keys of the user, of their runs and of their household
/// (live or destroyed, never the key itself), the read model rows that name them, and the events
/// keyed by them in the archive.
struct PrivacyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy",
        abstract: "What is held about a user, and under which data keys.",
        subcommands: [Status.self])

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Keys, rows and events of one user.")

        @Argument(help: "The user's id.") var user: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        /// Columns that name a user in the read models.
        static let userColumns = ["user_id", "author_id", "owner_user_id", "proposed_for", "created_by", "admin_id", "set_by"]

        struct Report: Encodable {
            var userId: String
            var account: String
            var keys: [Key]
            var rows: [String: Int]
            var archivedEvents: Int

            struct Key: Encodable {
                var subject: String
                var keyId: String
                var state: String
                var createdAt: Date
                var destroyedAt: Date?
                var because: String?

                enum CodingKeys: String, CodingKey {
                    case subject, state, because
                    case keyId = "key_id"
                    case createdAt = "created_at"
                    case destroyedAt = "destroyed_at"
                }
            }

            enum CodingKeys: String, CodingKey {
                case userId = "user_id", account, keys, rows
                case archivedEvents = "archived_events"
            }
        }

        func run() async throws {
            guard let userId = UUID(uuidString: user) else { throw ValidationError("the user must be a user id (a UUID)") }
            let logger = CLILogging.logger()
            let connection = connection
            let report = try await connection.withPostgres(logger: logger) { client in
                try await Self.report(userId, client: client, keys: try connection.keys(client: client, logger: logger), logger: logger)
            }
            if json {
                try JSONOutput.print(report)
                return
            }
            print("user \(report.userId): \(report.account)")
            print("keys:")
            for key in report.keys {
                let destroyed = key.destroyedAt.map { " at \(Timestamp.format($0)) (\(key.because ?? "?"))" } ?? ""
                print("  \(key.subject)  \(key.state)\(destroyed)  key \(key.keyId)")
            }
            print("read model rows naming the user:")
            for (table, count) in report.rows.sorted(by: { $0.key < $1.key }) { print("  \(table): \(count)") }
            print("events keyed by the user in the archive: \(report.archivedEvents)")
        }

        static func report(_ user: UUID, client: PostgresClient, keys: DataKeyRing, logger: Logger) async throws -> Report {
            var account = "unknown"
            for try await (requested, eraseAfter, erased) in try await client.query(
                "SELECT deletion_requested_at, erase_after, erased_at FROM users WHERE user_id = \(user)", logger: logger
            ).decode((Date?, Date?, Date?).self) {
                if let erased {
                    account = "erased at \(Timestamp.format(erased))"
                } else if let requested {
                    account = "deletion requested at \(Timestamp.format(requested)), erased after \(eraseAfter.map(Timestamp.format) ?? "?")"
                } else {
                    account = "active"
                }
            }
            var subjects = ["user:\(user.uuidString.lowercased())"]
            for try await run in try await client.query("SELECT run_id FROM agent_runs WHERE user_id = \(user)", logger: logger).decode(UUID.self) {
                subjects.append(KeySubject.run(run))
            }
            for try await household in try await client.query(
                "SELECT household_id FROM user_households WHERE user_id = \(user)", logger: logger
            ).decode(UUID.self) {
                subjects.append("household:\(household.uuidString.lowercased())")
            }
            let held = try await keys.status(subjects: subjects).map { key in
                Report.Key(
                    subject: key.subject, keyId: key.keyId.uuidString.lowercased(), state: key.destroyedAt == nil ? "live" : "destroyed",
                    createdAt: key.createdAt, destroyedAt: key.destroyedAt, because: key.destroyedBecause)
            }
            var rows: [String: Int] = [:]
            var columns: [(String, String)] = []
            for try await column in try await client.query(
                """
                SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type = 'uuid'
                  AND c.column_name = ANY(\(userColumns))
                ORDER BY 1, 2
                """, logger: logger
            ).decode((String, String).self) { columns.append(column) }
            for (table, column) in columns {
                let query = PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \"\(table)\" WHERE \"\(column)\" = $1", binds: {
                    var binds = PostgresBindings()
                    binds.append(user)
                    return binds
                }())
                for try await count in try await client.query(query, logger: logger).decode(Int.self) where count > 0 {
                    rows["\(table).\(column)", default: 0] += count
                }
            }
            var archived = 0
            for try await count in try await client.query(
                "SELECT count(*)::int FROM event_log WHERE key = \(user.uuidString.lowercased())", logger: logger
            ).decode(Int.self) { archived = count }
            return Report(userId: user.uuidString.lowercased(), account: account, keys: held, rows: rows, archivedEvents: archived)
        }
    }
}
