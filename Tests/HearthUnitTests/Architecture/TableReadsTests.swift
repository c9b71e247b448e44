import Foundation
import HearthCtlCommands
import Testing

/// Which executable touches which tables, read from the sources: an executable may read another
/// executable's table only where `ReadModelCatalogue.foreignReads` declares it, and writes only
/// its own.
@Suite struct TableReadsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The owner of each table, from the `CREATE TABLE`s of every executable's migrations.
    static func owners() throws -> [String: ReadModelCatalogue.Owner] {
        var owners: [String: ReadModelCatalogue.Owner] = [:]
        for owner in ReadModelCatalogue.Owner.allCases {
            for migration in try ReadModelCatalogue.migrations(of: owner) {
                for table in SourceScan.createdTables(in: migration.sql) { owners[table] = owner }
            }
        }
        return owners
    }

    static func sources(under folder: String) throws -> [SourceScan.File] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [SourceScan.File] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            files.append(SourceScan.File(path: String(url.path.dropFirst(root.path.count + 1)), text: try String(contentsOf: url, encoding: .utf8)))
        }
        return files
    }

    @Test func everyTableAnExecutableReadsIsItsOwnOrDeclared() throws {
        let owners = try Self.owners()
        #expect(owners["households"] == .gateway && owners["reminders"] == .notifier, "the migrations were read")
        let shared = try Self.sources(under: "Shared")
        #expect(shared.count > 50)
        for owner in ReadModelCatalogue.Owner.allCases {
            let own = try Self.sources(under: "Services/" + ReadModelCatalogue.sourceFolder(of: owner))
            #expect(!own.isEmpty, "no sources for \(owner.rawValue)")
            let used = SourceScan.reachable(from: own, shared: shared)
            let foreign = SourceScan.references(in: own + used).filter { owners[$0.table].map { $0 != owner } ?? false }
            let declared = ReadModelCatalogue.foreignReads[owner] ?? []
            let undeclared = foreign.filter { !declared.contains($0.table) }
            #expect(undeclared.isEmpty, "\(owner.rawValue) reads tables of other executables that ReadModelCatalogue.foreignReads does not declare: \(undeclared)")
            let stale = declared.subtracting(foreign.map(\.table))
            #expect(stale.isEmpty, "ReadModelCatalogue.foreignReads declares reads \(owner.rawValue) no longer makes: \(stale.sorted())")
            let writes = SourceScan.references(in: own).filter { $0.isWrite && owners[$0.table].map { $0 != owner } ?? false }
            #expect(writes.isEmpty, "\(owner.rawValue) writes tables another executable owns: \(writes)")
        }
    }

    // The scan itself, on sources made up for it: what the test above relies on.

    @Test func aReadThroughSharedCodeCountsForTheExecutableThatUsesIt() {
        let shared = [
            SourceScan.File(path: "Shared/A.swift", text: "public struct Search {\n  let sql = \"SELECT id FROM document_chunks\"\n}\n"),
            SourceScan.File(path: "Shared/B.swift", text: "public struct Unused {\n  let sql = \"SELECT id FROM reminders\"\n}\n"),
            SourceScan.File(path: "Shared/C.swift", text: "public struct Outer {\n  let search = Search()\n}\n"),
        ]
        let own = [SourceScan.File(path: "Services/X/Y.swift", text: "let outer = Outer()\nlet sql = \"UPDATE households SET name = 'x'\"")]
        let used = SourceScan.reachable(from: own, shared: shared)
        #expect(Set(used.map(\.path)) == ["Shared/A.swift", "Shared/C.swift"])
        let references = SourceScan.references(in: own + used)
        #expect(Set(references.map(\.table)) == ["document_chunks", "households"])
        #expect(references.first { $0.table == "households" }?.isWrite == true)
        #expect(references.first { $0.table == "document_chunks" }?.isWrite == false)
    }

    @Test func createdTablesAreReadFromTheMigrationsText() {
        let sql = "CREATE TABLE a (id int);\ncreate unlogged table IF NOT EXISTS b (x int);\nCREATE INDEX c ON a (id);\nCREATE VIEW d AS SELECT 1;\nCREATE FUNCTION e() RETURNS int;"
        #expect(SourceScan.createdTables(in: sql) == ["a", "b", "d", "e"])
    }
}

/// A plain-text reading of Swift sources and SQL: good enough to find which tables a folder's SQL
/// names, and which shared files a folder's code can reach (a file is reachable when it declares
/// a top-level type the code reaching it names).
enum SourceScan {
    struct File {
        let path: String
        let text: String
    }

    struct Reference: CustomStringConvertible {
        let table: String
        let isWrite: Bool
        let path: String
        var description: String { "\(table) (\(isWrite ? "write" : "read"), \(path))" }
    }

    static func matches(_ pattern: String, in text: String, options: NSRegularExpression.Options = []) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern, options: options)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { match in
            (0..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    /// Views and SQL functions count as tables: reading another executable's view or table
    /// function is reading its tables.
    static func createdTables(in sql: String) -> [String] {
        matches(
            #"CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNLOGGED\s+)?(?:TABLE|VIEW|FUNCTION)\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)"#, in: sql,
            options: .caseInsensitive
        ).map { $0[1] }
    }

    /// Tables named after FROM, JOIN, UPDATE, INTO or DELETE FROM, with or without `public.` (SQL
    /// is written upper-case here; a table name built by interpolation is not seen). Writes are
    /// checked in an executable's own folder only: shared code that writes (the gateway's
    /// `GoogleCredentialStore`) is reached by readers that only call its reads.
    static func references(in files: [File]) -> [Reference] {
        files.flatMap { file in
            matches(#"\b(DELETE FROM|INSERT INTO|FROM|JOIN|UPDATE|INTO)\s+(?:public\.)?([a-z_][a-z0-9_]*)"#, in: file.text).map { match in
                Reference(table: match[2], isWrite: match[1] != "FROM" && match[1] != "JOIN", path: file.path)
            }
        }
    }

    /// The shared files `own` reaches, directly or through other shared files.
    static func reachable(from own: [File], shared: [File]) -> [File] {
        var declaring: [String: [Int]] = [:]
        let declaration = #"(?m)^(?:@\w+\s+)*(?:(?:public|internal|package|final|indirect)\s+)*(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z]\w*)"#
        for (index, file) in shared.enumerated() {
            for match in matches(declaration, in: file.text) { declaring[match[1], default: []].append(index) }
        }
        // Extensions of a shared type belong to it: naming the type reaches them too.
        for (index, file) in shared.enumerated() {
            for match in matches(#"(?m)^(?:(?:public|internal|package)\s+)*extension\s+([A-Z]\w*)"#, in: file.text)
            where declaring[match[1]] != nil {
                declaring[match[1], default: []].append(index)
            }
        }
        func names(_ text: String) -> Set<String> { Set(matches(#"\b[A-Z]\w*\b"#, in: text).map { $0[0] }) }
        var reached = Set<Int>()
        var pending = own.reduce(into: Set<String>()) { $0.formUnion(names($1.text)) }
        var seenNames = Set<String>()
        while let name = pending.popFirst() {
            guard seenNames.insert(name).inserted else { continue }
            for index in declaring[name] ?? [] where reached.insert(index).inserted {
                pending.formUnion(names(shared[index].text).subtracting(seenNames))
            }
        }
        return reached.sorted().map { shared[$0] }
    }
}
