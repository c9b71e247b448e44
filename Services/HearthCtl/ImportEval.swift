import ArgumentParser
import Foundation
import HearthDomain

/// `hearthctl eval import`: the daycare report parser's precision and recall on the sample sheets
/// (each `<name>.txt|csv|json` beside its `<name>.expected.json`). The printed sheets (`*_printed.txt`)
/// are also read the ways the gateway reads their PDF (Hearth's PDF writer, then poppler's
/// `pdftotext`) and their photo (rendered by libvips, then `tesseract`), when those tools are there.
/// A suggestion matches an expected one of the same kind starting within 5 minutes.
struct ImportEval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Precision and recall of the daycare report parser on the sample sheets.")

    @Option(help: "The folder of sample sheets.") var sheets = "Tests/HearthUnitTests/Tracking/DaycareSheets"
    @Option(name: .customLong("min-precision"), help: "Exit 1 below this overall precision.") var minPrecision = 0.0
    @Option(name: .customLong("min-recall"), help: "Exit 1 below this overall recall.") var minRecall = 0.0
    @Flag(help: "Print each sheet's misses.") var verbose = false

    func run() async throws {
        let directory = URL(fileURLWithPath: sheets)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.contains(".expected.") && ($0.hasSuffix(".txt") || $0.hasSuffix(".csv") || $0.hasSuffix(".json")) }.sorted()
        guard !names.isEmpty else { throw ValidationError("no sample sheets in \(sheets)") }
        let parser = DaycareReportParser()
        var expectedAll: [SuggestedLog] = [], actualAll: [SuggestedLog] = []
        print("sheet                          read as   precision  recall")
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            let expected = try JSONDecoder().decode([SuggestedLog].self, from: Data(contentsOf: directory.appendingPathComponent("\(stem).expected.json")))
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let format: DaycareReportFormat = name.hasSuffix(".csv") ? .csv : name.hasSuffix(".json") ? .json : .text
            var readings: [(String, String)] = [("file", text)]
            if stem.hasSuffix("_printed") {
                if let viaPDF = Self.viaPDF(text) { readings.append(("pdf", viaPDF)) }
                if let viaPhoto = Self.viaPhoto(text) { readings.append(("photo", viaPhoto)) }
            }
            for (how, content) in readings {
                let actual = parser.parse(content, format: how == "file" ? format : .text).suggestions
                let score = ImportScore.score(expected: expected, actual: actual)
                print("\(name.padding(toLength: 30, withPad: " ", startingAt: 0)) \(how.padding(toLength: 9, withPad: " ", startingAt: 0)) \(String(format: "%.3f", score.precision))      \(String(format: "%.3f", score.recall))")
                if verbose, score.precision < 1 || score.recall < 1 {
                    let key = { (log: SuggestedLog) in "\(log.kind.rawValue)@\(SuggestedLog.clock(log.start))" }
                    print("    missed: \(Set(expected.map(key)).subtracting(actual.map(key)).sorted())  extra: \(Set(actual.map(key)).subtracting(expected.map(key)).sorted())")
                }
                expectedAll += expected
                actualAll += actual
            }
        }
        let overall = ImportScore.score(expected: expectedAll, actual: actualAll)
        print("overall precision \(String(format: "%.3f", overall.precision)) recall \(String(format: "%.3f", overall.recall))")
        if overall.precision < minPrecision || overall.recall < minRecall { throw ExitCode(1) }
    }

    static func viaPDF(_ text: String) -> String? {
        var layout = PDFPageLayout(document: PDFDocumentBuilder(title: "Daily report"))
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { layout.paragraph(String(line), size: 11, spacingAfter: 2) }
        return run(["pdftotext", "-layout", "{in}", "-"], input: layout.data(), extension: "pdf")
    }

    static func viaPhoto(_ text: String) -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-eval-\(UUID().uuidString.prefix(8))")
        guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil else { return nil }
        defer { try? FileManager.default.removeItem(at: directory) }
        let rendered = directory.appendingPathComponent("text.png"), photo = directory.appendingPathComponent("sheet.png")
        for arguments in [["vips", "text", rendered.path, text, "--dpi", "200", "--font", "DejaVu Sans 12"], ["vips", "invert", rendered.path, photo.path]] {
            guard launch(arguments) == 0 else { return nil }
        }
        guard let image = try? Data(contentsOf: photo) else { return nil }
        return run(["tesseract", "{in}", "-", "--psm", "6"], input: image, extension: "png")
    }

    private static func run(_ arguments: [String], input: Data, extension ext: String) -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-eval-\(UUID().uuidString.prefix(8))")
        guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil else { return nil }
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("in.\(ext)"), out = directory.appendingPathComponent("out.txt")
        guard (try? input.write(to: file)) != nil else { return nil }
        FileManager.default.createFile(atPath: out.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: out) else { return nil }
        defer { try? handle.close() }
        let status = launch(arguments.map { $0 == "{in}" ? file.path : $0 }, stdout: handle)
        return status == 0 ? try? String(contentsOf: out, encoding: .utf8) : nil
    }

    @discardableResult
    private static func launch(_ arguments: [String], stdout: FileHandle? = nil) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let stdout { process.standardOutput = stdout }
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return 127 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
