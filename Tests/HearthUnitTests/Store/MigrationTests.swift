import Foundation
import HearthCtlCommands
import HearthStore
import Testing

@Suite struct MigrationTests {
    @Test func gatewayMigrationsAreNumberedAndLoadable() throws {
        let migrations = try ReadModelCatalogue.migrations(of: .gateway)
        #expect(migrations.map(\.version) == Array(1...migrations.count))
        #expect(migrations.contains { $0.sql.contains("CREATE TABLE households") })
        #expect(migrations.contains { $0.sql.contains("CREATE TABLE event_log") })
    }

    /// Every executable finds its migrations in its library's resources (a missing folder would
    /// stop it at start-up): each has some, numbered from 1.
    @Test func everyExecutableHasItsMigrations() throws {
        for owner in ReadModelCatalogue.Owner.allCases {
            let migrations = try ReadModelCatalogue.migrations(of: owner)
            #expect(!migrations.isEmpty, "\(owner.rawValue)")
            #expect(migrations.map(\.version) == Array(1...max(1, migrations.count)), "\(owner.rawValue)")
            #expect(migrations.allSatisfy { $0.owner == owner.rawValue })
        }
    }

    @Test func gapsInNumberingAreRejected() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID())")
        let owner = folder.appendingPathComponent("svc")
        try FileManager.default.createDirectory(at: owner, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "SELECT 1;".write(to: owner.appendingPathComponent("0001_first.sql"), atomically: true, encoding: .utf8)
        try "SELECT 1;".write(to: owner.appendingPathComponent("0003_third.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.self) { try Migration.load(owner: "svc", folder: owner) }
    }

    @Test func everyProjectionNameIsUnique() {
        let names = ReadModelCatalogue.allProjections.map(\.name)
        #expect(Set(names).count == names.count)
    }
}
