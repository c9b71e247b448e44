import ArgumentParser
import Foundation
import HearthAssist
import HearthConfiguration
import HearthDomain
import HearthRuntime

/// `hearthctl eval import`: the daycare report parser's precision and recall on the sample sheets
/// (each `<name>.txt|csv|json` beside its `<name>.expected.json`). The printed sheets (`*_printed.txt`)
/// are also read the ways the gateway reads their PDF (Hearth's PDF writer, then poppler's
/// `pdftotext`) and their photo (rendered by libvips, then `tesseract`), when those tools are there.
/// A suggestion matches an expected one of the same kind starting within 5 minutes.
/// With `HEARTH_DAYCARE_IMPORT_PARSER=model` (and the router's extraction chain naming a provider,
/// as for the gateway) every reading is also scored through the model, the rules behind it; its
/// rows say `model` and its overall line comes after the rules'.
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
        let configured = try DaycareImportReaderSelection.fromEnvironment(EnvironmentReader())
        let model = configured is DaycareReportParser ? nil : configured
        var expectedAll: [SuggestedLog] = [], actualAll: [SuggestedLog] = []
        var modelExpected: [SuggestedLog] = [], modelActual: [SuggestedLog] = [], modelParsers: Set<String> = []
        print("sheet                          read as   by     precision  recall")
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            let expected = try JSONDecoder().decode([SuggestedLog].self, from: Data(contentsOf: directory.appendingPathComponent("\(stem).expected.json")))
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let format: DaycareReportFormat = name.hasSuffix(".csv") ? .csv : name.hasSuffix(".json") ? .json : .text
            var readings: [(String, String)] = [("file", text)]
            if stem.hasSuffix("_printed") {
                if let viaPDF = await Self.viaPDF(text) { readings.append(("pdf", viaPDF)) }
                if let viaPhoto = await Self.viaPhoto(text) { readings.append(("photo", viaPhoto)) }
            }
            for (how, content) in readings {
                let actual = parser.parse(content, format: how == "file" ? format : .text).suggestions
                let score = ImportScore.score(expected: expected, actual: actual)
                Self.row(name, how, "rules", score)
                if let model {
                    let reading = try await model.read(content, format: how == "file" ? format : .text, householdId: Self.evalHousehold)
                    Self.row(name, how, "model", ImportScore.score(expected: expected, actual: reading.parse.suggestions))
                    modelExpected += expected
                    modelActual += reading.parse.suggestions
                    modelParsers.insert(reading.parser)
                }
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
        if model != nil {
            let scored = ImportScore.score(expected: modelExpected, actual: modelActual)
            // A reading the model could not give fell back to the rules: say which answered.
            print("model overall precision \(String(format: "%.3f", scored.precision)) recall \(String(format: "%.3f", scored.recall)) (read by \(modelParsers.sorted().joined(separator: ", ")))")
        }
        if overall.precision < minPrecision || overall.recall < minRecall { throw ExitCode(1) }
    }

    /// Whose budget the model's readings are charged to: nobody's household.
    static let evalHousehold = UUID(uuidString: "00000000-0000-0000-0000-00000000e7a1")!

    static func row(_ name: String, _ how: String, _ by: String, _ score: ImportScore) {
        print("\(name.padding(toLength: 30, withPad: " ", startingAt: 0)) \(how.padding(toLength: 9, withPad: " ", startingAt: 0)) \(by.padding(toLength: 6, withPad: " ", startingAt: 0)) \(String(format: "%.3f", score.precision))      \(String(format: "%.3f", score.recall))")
    }

    /// A printed sheet: the text on A4 by Hearth's PDF writer.
    static func printedPDF(_ text: String) -> Data {
        var layout = PDFPageLayout(document: PDFDocumentBuilder(title: "Daily report"))
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { layout.paragraph(String(line), size: 11, spacingAfter: 2) }
        return layout.data()
    }

    /// A photo of a printed sheet: the text rendered by libvips, black on white.
    static func photo(of text: String, tools: ToolRunner = ToolRunner()) async throws -> Data {
        let rendered = try await tools.run(
            "vips", ["text", "{out}", text, "--dpi", "200", "--font", "DejaVu Sans 12"], input: Data(), inputExtension: "txt", outputExtension: "png")
        let inverted = try await tools.run(
            "vips", ["invert", "{in}", "{out}"], input: rendered.output ?? Data(), inputExtension: "png", outputExtension: "png")
        return inverted.output ?? Data()
    }

    /// What the gateway reads of the sheet's PDF (`pdftotext`), nil without poppler.
    static func viaPDF(_ text: String) async -> String? {
        try? await ToolRunner().pdfText(printedPDF(text))
    }

    /// What the gateway reads of the sheet's photo (`tesseract`), nil without libvips or tesseract.
    static func viaPhoto(_ text: String) async -> String? {
        guard let image = try? await photo(of: text), !image.isEmpty else { return nil }
        return try? await ToolRunner().imageText(image)
    }
}
