import Foundation
import HearthPrivacy
import Logging
import PostgresNIO

/// Applies migrations at start-up. Several executables (and several instances of one) start at
/// once, so the work happens under a Postgres advisory lock and each file is applied once.
public struct MigrationRunner: Sendable {
    /// Arbitrary but fixed: every Hearth process contends for this one lock.
    static let advisoryLockKey: Int64 = 0x4845_4152_5448

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The tables the store itself needs: migration history, projection offsets, parked events and
    /// the data keys.
    static let bootstrapSQL = [
        """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            owner text NOT NULL,
            version integer NOT NULL,
            name text NOT NULL,
            checksum text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (owner, version)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS projection_offsets (
            projection text NOT NULL,
            topic text NOT NULL,
            partition integer NOT NULL,
            next_offset bigint NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (projection, topic, partition)
        )
        """,
        DeadLetterStore.tableSQL,
        DeadLetterStore.indexSQL,
        DataKeyRing.tableSQL,
        DataKeyRing.indexSQL,
    ]

    public func apply(_ migrations: [Migration]) async throws {
        try await client.withConnection { connection in
            _ = try await connection.query("SELECT pg_advisory_lock(\(Self.advisoryLockKey))", logger: logger)
            do {
                try await applyLocked(migrations, on: connection)
                _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
                throw error
            }
        }
    }

    private func applyLocked(_ migrations: [Migration], on connection: PostgresConnection) async throws {
        for statement in Self.bootstrapSQL {
            _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        var applied: [String: String] = [:]
        for try await (owner, version, checksum) in try await connection.query(
            "SELECT owner, version, checksum FROM schema_migrations", logger: logger
        ).decode((String, Int, String).self) {
            applied["\(owner)/\(version)"] = checksum
        }
        for migration in migrations {
            let checksum = Self.checksum(migration.sql)
            if let existing = applied["\(migration.owner)/\(migration.version)"] {
                guard existing == checksum else {
                    throw MigrationError.changedAfterApply(owner: migration.owner, version: migration.version)
                }
                continue
            }
            try await connection.withTransaction(logger: logger) { transaction in
                for statement in SQLScript.statements(migration.sql) {
                    _ = try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                _ = try await transaction.query(
                    """
                    INSERT INTO schema_migrations (owner, version, name, checksum)
                    VALUES (\(migration.owner), \(migration.version), \(migration.name), \(checksum))
                    """, logger: logger)
            }
            logger.info("applied migration", metadata: ["owner": "\(migration.owner)", "version": "\(migration.version)", "name": "\(migration.name)"])
        }
    }

    /// FNV-1a over the file's bytes: enough to notice a migration edited after it ran.
    static func checksum(_ sql: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// True when every given migration is recorded (used by `/readyz`).
    public func isApplied(_ migrations: [Migration]) async throws -> Bool {
        var applied = Set<String>()
        for try await (owner, version) in try await client.query(
            "SELECT owner, version FROM schema_migrations", logger: logger
        ).decode((String, Int).self) {
            applied.insert("\(owner)/\(version)")
        }
        return migrations.allSatisfy { applied.contains("\($0.owner)/\($0.version)") }
    }
}
