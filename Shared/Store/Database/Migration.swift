import Foundation

/// One numbered SQL file of an executable's read models, e.g. `gateway/0001_households.sql`.
public struct Migration: Sendable, Equatable {
    public let owner: String
    public let version: Int
    public let name: String
    public let sql: String

    public init(owner: String, version: Int, name: String, sql: String) {
        self.owner = owner
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Loads `<folder>/NNNN_name.sql` (an executable's `Migrations` resource), ordered by number.
    /// A gap or a duplicate number is an error: migrations are append-only history.
    public static func load(owner: String, folder: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        var migrations: [Migration] = []
        for file in files {
            let stem = String(file.dropLast(4))
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]) else {
                throw MigrationError.badFileName(owner: owner, file: file)
            }
            let sql = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            migrations.append(Migration(owner: owner, version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        for (index, migration) in migrations.enumerated() where migration.version != index + 1 {
            throw MigrationError.notContiguous(owner: owner, found: migration.version, expected: index + 1)
        }
        return migrations
    }
}

public enum MigrationError: Error, CustomStringConvertible {
    case badFileName(owner: String, file: String)
    case notContiguous(owner: String, found: Int, expected: Int)
    case changedAfterApply(owner: String, version: Int)

    public var description: String {
        switch self {
        case .badFileName(let owner, let file): "migration \(owner)/\(file) is not named NNNN_name.sql"
        case .notContiguous(let owner, let found, let expected): "migrations of \(owner): found \(found) where \(expected) was expected"
        case .changedAfterApply(let owner, let version): "migration \(owner)/\(version) was edited after it was applied; add a new migration instead"
        }
    }
}
