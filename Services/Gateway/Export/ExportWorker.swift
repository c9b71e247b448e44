import Foundation
import Logging
import PostgresNIO
import HearthRuntime

/// Builds the archives of the exports asked for (`export_requests`, kept by the export projection)
/// and stores them in `export_archives`, where `GET /v1/me/export/{id}` finds them; removes
/// archives a week old. A crash before the archive is stored builds it again: an export with no
/// archive stays pending.
struct ExportWorker: Sendable {
    /// How long an archive can be downloaded.
    static let kept: TimeInterval = 7 * 86_400

    let client: PostgresClient
    let logger: Logger

    /// Builds what is pending, and drops what is a week old, every `interval`.
    func service(every interval: Duration) -> PeriodicService {
        PeriodicService("building exports", every: interval, logger: logger) {
            try await buildPending()
            try await client.query("DELETE FROM export_archives WHERE created_at < now() - make_interval(secs => \(Self.kept))", logger: logger)
        }
    }

    /// Builds every export without an archive; answers how many.
    @discardableResult
    func buildPending() async throws -> Int {
        var pending: [(UUID, UUID, String, UUID?)] = []
        let rows = try await client.query(
            """
            SELECT r.export_id, r.user_id, r.scope, r.household_id FROM export_requests r
            WHERE NOT EXISTS (SELECT 1 FROM export_archives a WHERE a.export_id = r.export_id)
              AND r.requested_at > now() - make_interval(secs => \(Self.kept))
            ORDER BY r.requested_at LIMIT 20
            """, logger: logger)
        for try await row in rows.decode((UUID, UUID, String, UUID?).self) { pending.append(row) }
        for (export, user, scope, household) in pending {
            let archive = try await build(scope: scope, subject: scope == "household" ? household ?? user : user)
            try await client.query(
                """
                INSERT INTO export_archives (export_id, user_id, archive) VALUES (\(export), \(user), \(archive))
                ON CONFLICT (export_id) DO NOTHING
                """, logger: logger)
            logger.info("export built", metadata: ["export_id": "\(export.uuidString.lowercased())", "bytes": "\(archive.count)"])
        }
        return pending.count
    }

    /// The ZIP of `scope`'s sections for `subject`, with a README.txt describing each file.
    func build(scope: String, subject: UUID) async throws -> Data {
        let sections = scope == "household" ? ExportSection.household : ExportSection.user
        var zip = ZipArchive()
        zip.add("README.txt", Data(ExportSection.readme(for: sections, scope: scope).utf8))
        for section in sections {
            var text = "null"
            for try await json in try await client.query(section.query(subject), logger: logger).decode(String.self) { text = json }
            zip.add(section.file, Data(text.utf8))
        }
        return zip.finished()
    }
}
