import Foundation
import Testing

/// The README's configuration section and the settings the executables read, held together the
/// way the compose check holds `compose.yaml` to the event catalogue: every variable the code
/// reads is documented with the default the code uses, and every variable documented is read.
@Suite struct ConfigurationDocsTests {
    static func text(under folder: String, extensions: Set<String>) throws -> [(path: String, text: String)] {
        let base = TableReadsTests.root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker where extensions.contains(url.pathExtension) {
            if let text = try? String(contentsOf: url, encoding: .utf8) { files.append((url.path, text)) }
        }
        return files
    }

    static func code() throws -> [(path: String, text: String)] {
        try text(under: "Services", extensions: ["swift"]) + text(under: "Shared", extensions: ["swift"])
    }

    static func readme() throws -> String {
        try String(contentsOf: TableReadsTests.root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    @Test func everyVariableTheCodeReadsIsInTheReadme() throws {
        let readme = try Self.readme()
        let documented = Set(SourceScan.matches(#"HEARTH_[A-Z0-9_]+"#, in: readme).map { $0[0] })
        var read: [String: String] = [:]
        for file in try Self.code() {
            for match in SourceScan.matches(#""(HEARTH_[A-Z0-9_]+)""#, in: file.text) { read[match[1]] = file.path }
        }
        #expect(read.count > 60, "the sources were read")
        let undocumented = read.filter { !documented.contains($0.key) }.map { "\($0.key) (\($0.value))" }.sorted()
        #expect(undocumented.isEmpty, "read by the code but not in the README: \(undocumented)")
    }

    /// A documented variable nothing reads misleads an operator. Some are read by the scripts,
    /// compose or the tests rather than the executables; a few are built from a prefix in code
    /// (`HEARTH_MODEL_CHAIN_<ROLE>`).
    @Test func everyVariableTheReadmeNamesIsRead() throws {
        let readme = try Self.readme()
        var readers = try Self.code().map(\.text)
        readers += try Self.text(under: "deploy", extensions: ["sh", "py", "yaml", "yml", "lua"]).map(\.text)
        readers += try Self.text(under: "Tests", extensions: ["swift", "sh"]).map(\.text)
        for file in ["Makefile", "compose.yaml"] {
            readers.append((try? String(contentsOf: TableReadsTests.root.appendingPathComponent(file), encoding: .utf8)) ?? "")
        }
        let all = readers.joined(separator: "\n")
        let prefixes = SourceScan.matches(#""(HEARTH_[A-Z0-9_]+_)\\\("#, in: all).map { $0[1] }
        let documented = Set(SourceScan.matches(#"HEARTH_[A-Z0-9_]+"#, in: readme).map { $0[0] })
        let unread = documented.filter { name in !all.contains(name) && !prefixes.contains { name.hasPrefix($0) } }
        #expect(unread.isEmpty, "in the README but read by nothing: \(unread.sorted())")
    }

    /// A literal default in the code (`int("HEARTH_X", default: 15, …)`) appears on a README line
    /// that names the variable.
    @Test func theReadmeGivesTheDefaultsTheCodeUses() throws {
        let lines = try Self.readme().split(separator: "\n").map(String.init)
        var checked = 0
        var wrong: [String] = []
        for file in try Self.code() {
            for match in SourceScan.matches(#"\.(?:int|decimal|bool|string)\("(HEARTH_[A-Z0-9_]+)", default: ([^,)]+)"#, in: file.text) {
                let name = match[1]
                let written = match[2].trimmingCharacters(in: .whitespaces)
                let value: String
                if written.allSatisfy({ $0.isNumber || $0 == "_" || $0 == "." }) {
                    value = written.replacingOccurrences(of: "_", with: "")
                } else if written == "true" || written == "false" {
                    value = written
                } else if written.count >= 2, written.hasPrefix("\""), written.hasSuffix("\"") {
                    value = String(written.dropFirst().dropLast())
                } else {
                    continue  // a computed default (a constant, an expression): nothing literal to compare
                }
                checked += 1
                // The value as a word of its own: a default of 5 is not found in "15" or "50".
                let word = #"(?<![0-9A-Za-z_.])"# + NSRegularExpression.escapedPattern(for: value) + #"(?![0-9A-Za-z_])"#
                if !lines.contains(where: { $0.contains(name) && !SourceScan.matches(word, in: $0).isEmpty }) {
                    wrong.append("\(name): the code's default is \(value) (\(file.path))")
                }
            }
        }
        #expect(checked > 40, "the settings were read")
        #expect(wrong.isEmpty, "README lines naming these variables do not give the code's default: \(wrong)")
    }
}
