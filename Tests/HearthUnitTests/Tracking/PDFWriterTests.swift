import Foundation
import HearthDomain
import Testing

/// The summary's PDF writer: a file poppler can read, with a correct cross-reference table,
/// WinAnsi text that survives escaping, wrapping that respects the width, and layout that flows
/// onto a second page. When poppler-utils is installed, the file is also read back with
/// `pdftotext` and rendered with `pdftoppm`.
@Suite struct PDFWriterTests {
    static let pdftotext = "/usr/bin/pdftotext"
    static let pdftoppm = "/usr/bin/pdftoppm"

    static let longText = String(repeating: "Maya napped in the quiet room after lunch and woke up happy, then had a bottle of 150 ml. ", count: 12)

    /// WHO weight-for-age for girls, roughly, at 0, 3, 6, 9 and 12 months (kg).
    static let bands: [GrowthBandCurve] = [
        (3.0, [2.4, 4.5, 5.7, 6.5, 7.0]), (15, [2.8, 5.1, 6.4, 7.3, 7.9]), (50, [3.2, 5.8, 7.3, 8.2, 8.9]),
        (85, [3.7, 6.6, 8.3, 9.3, 10.1]), (97, [4.2, 7.4, 9.2, 10.4, 11.3]),
    ].map { percentile, values in
        GrowthBandCurve(percentile: percentile, points: zip([0, 91, 183, 274, 365], values).map { GrowthChartPoint(ageDays: $0, value: $1) })
    }

    /// A small summary: a title, a metrics table, the growth chart and a paragraph.
    static func summary() -> PDFPageLayout {
        var layout = PDFPageLayout(document: PDFDocumentBuilder(title: "Pediatrician summary — Maya"))
        layout.heading("Pediatrician summary — Maya", size: 18, keepWithNext: 0)
        layout.paragraph("Crème fraîche (first taste) at the café, logged from C:\\daycare\\sheet.txt")
        layout.table(header: ["Metric", "Value"], rows: [["Naps per day", "3.1"], ["Feeds per day", "7.4"]], rightAligned: [1])
        let top = layout.reserve(240)
        PDFGrowthChart(title: "Weight for age", unit: "kg", bands: bands,
                       measurements: [.init(ageDays: 0, value: 3.3), .init(ageDays: 61, value: 5.2), .init(ageDays: 122, value: 6.5)])
            .draw(into: &layout.document, x: layout.left, y: top, width: layout.contentWidth, height: 230)
        layout.paragraph(longText)
        layout.paragraph("This summary is not medical advice. Ask your pediatrician about anything that concerns you.", size: 8)
        return layout
    }

    static func text(_ data: Data) -> String {
        // Everything but the binary comment on line 2 is ASCII, so this keeps every other byte.
        String(decoding: data, as: UTF8.self)
    }

    @Test func theFileStartsWithTheVersionHeaderAndEndsWithEndOfFile() {
        let data = Self.summary().data()
        let text = Self.text(data)
        #expect(text.hasPrefix("%PDF-1.7\n"))
        #expect(text.hasSuffix("%%EOF\n"))
        #expect(text.contains("/Producer (Hearth)"))
        #expect(text.contains("/MediaBox [0 0 595 842]"))
        #expect(text.contains("/BaseFont /Helvetica /Encoding /WinAnsiEncoding"))
        #expect(text.contains("/BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding"))
    }

    @Test func everyCrossReferenceOffsetPointsAtItsObject() throws {
        let bytes = [UInt8](Self.summary().data())
        let text = String(decoding: bytes, as: UTF8.self)
        // startxref, then the offset of the table, then %%EOF.
        let tail = text.components(separatedBy: "startxref\n").last ?? ""
        let xrefOffset = try #require(Int(tail.split(separator: "\n").first ?? ""))
        let table = String(decoding: bytes[xrefOffset...], as: UTF8.self)
        #expect(table.hasPrefix("xref\n0 "))
        let header = table.split(separator: "\n", maxSplits: 2)
        let count = try #require(Int(header[1].split(separator: " ")[1]))
        let size = try #require(table.firstMatch(of: /\/Size (\d+)/).flatMap { Int($0.1) })
        #expect(size == count)
        #expect(count >= 8)

        // Entries are fixed 20-byte records after the two header lines.
        let entriesStart = xrefOffset + "xref\n".utf8.count + header[1].utf8.count + 1
        for object in 0..<count {
            let start = entriesStart + object * 20
            let entry = String(decoding: bytes[start..<start + 20], as: UTF8.self)
            #expect(entry.utf8.count == 20 && entry.hasSuffix(" \n"), "entry \(object): \(entry)")
            if object == 0 {
                #expect(entry == "0000000000 65535 f \n")
                continue
            }
            #expect(entry.hasSuffix(" 00000 n \n"), "entry \(object): \(entry)")
            let offset = try #require(Int(entry.prefix(10)))
            let marker = "\(object) 0 obj"
            let found = String(decoding: bytes[offset..<min(offset + marker.utf8.count, bytes.count)], as: UTF8.self)
            #expect(found == marker, "object \(object) at \(offset) reads \(found)")
        }
    }

    @Test func streamLengthsMatchTheStreamBytes() throws {
        let text = Self.text(Self.summary().data())
        let streams = text.matches(of: /<< \/Length (\d+) >>\nstream\n/)
        #expect(streams.count >= 1)
        for match in streams {
            let length = try #require(Int(match.1))
            let body = text[match.range.upperBound...]
            let end = try #require(body.range(of: "\nendstream"))
            #expect(body.utf8.distance(from: body.startIndex, to: end.lowerBound) == length)
        }
    }

    @Test func parenthesesBackslashesAndAccentsAreEscapedInTheContentStream() {
        var document = PDFDocumentBuilder(title: "Escapes")
        document.text("(ok) C:\\path café € 😀", x: 50, y: 100, size: 12)
        let text = Self.text(document.data())
        // "é" is 0xE9 in WinAnsi (octal 351), "€" is 0x80 (octal 200), and "😀" has no Latin form.
        #expect(text.contains("(\\(ok\\) C:\\\\path caf\\351 \\200 ?) Tj"))
        #expect(PDFDocumentBuilder.winAnsiBytes("e\u{301}") == [0xE9])
        #expect(PDFDocumentBuilder.winAnsiBytes("a\u{2014}b\u{2019}") == [0x61, 0x97, 0x62, 0x92])
    }

    @Test func lettersOutsideTheCodePageAreWrittenInLatinLetters() {
        // Below 0x80 and from 0xA0 code page 1252 is Latin-1.
        func latin(_ text: String) -> String? { String(bytes: PDFDocumentBuilder.winAnsiBytes(text), encoding: .isoLatin1) }
        #expect(latin("Łucja") == "Lucja")
        #expect(latin("Ğül") == "Gül", "ü is in the code page and keeps its accent")
        #expect(latin("Привет, Zoë") == "Privet, Zoë")
        #expect(latin("李小龍 ate peas") == "li xiao long ate peas")
        #expect(latin("Straße ẞ") == "Straße SS")
        #expect(PDFDocumentBuilder.winAnsiBytes("😀x") == [0x3F, 0x78])
    }

    @Test func theTitleIsWrittenAsUnicodeInTheDocumentInformation() {
        let text = Self.text(PDFDocumentBuilder(title: "A — é").data())
        #expect(text.contains("/Title <FEFF004100202014002000E9>"))
        #expect(!text.contains("/CreationDate"))
    }

    @Test func aCreationDateIsWrittenOnlyWhenGiven() {
        let date = Date(timeIntervalSince1970: 1_773_532_800 + 3723) // 2026-03-15 01:02:03 UTC
        let text = Self.text(PDFDocumentBuilder(title: "Dated", creationDate: date).data())
        #expect(text.contains("/CreationDate (D:20260315010203Z)"))
    }

    @Test func helveticaWidthsFollowTheFontMetrics() {
        #expect(PDFDocumentBuilder.textWidth("", size: 10) == 0)
        #expect(abs(PDFDocumentBuilder.textWidth("Hello", size: 10) - 22.78) < 1e-9) // 722+556+222+222+556
        #expect(abs(PDFDocumentBuilder.textWidth("Hello", size: 10, bold: true) - 24.45) < 1e-9) // 722+556+278+278+611
        #expect(PDFDocumentBuilder.textWidth("é", size: 10) == PDFDocumentBuilder.textWidth("e", size: 10))
        #expect(PDFDocumentBuilder.textWidth("WWW", size: 12) > PDFDocumentBuilder.textWidth("iii", size: 12))
    }

    @Test func wordWrappingKeepsEveryLineWithinTheWidth() {
        let width = 180.0
        let lines = PDFDocumentBuilder.wrap(Self.longText, width: width, size: 10)
        #expect(lines.count > 5)
        for line in lines {
            #expect(PDFDocumentBuilder.textWidth(line, size: 10) <= width, "too wide: \(line)")
        }
        // Nothing is lost or reordered: the lines joined are the words of the text.
        #expect(lines.joined(separator: " ").split(separator: " ") == Self.longText.split(separator: " "))
        // Each line is as full as it can be: the next word would not have fitted.
        for (line, next) in zip(lines, lines.dropFirst()) {
            let firstWord = next.split(separator: " ").first.map(String.init) ?? ""
            #expect(PDFDocumentBuilder.textWidth(line + " " + firstWord, size: 10) > width)
        }
    }

    @Test func wrappingKeepsLineBreaksAndCutsWordsWiderThanTheLine() {
        #expect(PDFDocumentBuilder.wrap("one\n\ntwo", width: 300, size: 10) == ["one", "", "two"])
        let word = String(repeating: "m", count: 60)
        let pieces = PDFDocumentBuilder.wrap(word, width: 100, size: 10)
        #expect(pieces.count > 1)
        #expect(pieces.joined() == word)
        #expect(pieces.allSatisfy { PDFDocumentBuilder.textWidth($0, size: 10) <= 100 })
    }

    @Test func wrappedTextReturnsTheBaselineAfterTheLastLine() {
        var document = PDFDocumentBuilder(title: "Wrap")
        let lines = PDFDocumentBuilder.wrap(Self.longText, width: 200, size: 10)
        let next = document.wrappedText(Self.longText, x: 50, y: 100, width: 200, size: 10, lineHeight: 12)
        #expect(next == 100 + Double(lines.count) * 12)
        #expect(Self.text(document.data()).components(separatedBy: " Tj ").count - 1 == lines.count)
    }

    @Test func longTextFlowsOntoASecondPageWithinTheMargins() throws {
        var layout = PDFPageLayout(document: PDFDocumentBuilder(title: "Notes"), margin: 50, bottomMargin: 60)
        layout.heading("Parent notes")
        layout.paragraph(String(repeating: Self.longText, count: 6))
        layout.addFooters { page, count in "Page \(page) of \(count)" }
        #expect(layout.document.pageCount == 2)
        let text = Self.text(layout.data())
        #expect(text.contains("/Count 2"))
        #expect(text.contains("(Page 1 of 2) Tj") && text.contains("(Page 2 of 2) Tj"))
        // Every paragraph baseline is inside the page's margins (in PDF space y grows upwards);
        // only the footers sit in the bottom margin.
        for match in text.matches(of: /1 0 0 1 ([\d.]+) ([\d.]+) Tm \((?!Page )/) {
            let (x, y) = (try #require(Double(match.1)), try #require(Double(match.2)))
            #expect(x >= 50 && y >= 60 && y <= 842 - 50, "text at \(x), \(y)")
        }
    }

    @Test func aTableRepeatsItsHeaderWhenItContinuesOnTheNextPage() {
        var layout = PDFPageLayout(document: PDFDocumentBuilder(title: "Table"))
        layout.table(header: ["Day", "Naps"], rows: (1...50).map { ["Day \($0)", "\($0 % 4)"] })
        #expect(layout.document.pageCount == 2)
        #expect(Self.text(layout.data()).components(separatedBy: "(Day) Tj").count - 1 == 2)
    }

    @Test func theSameDrawingGivesTheSameBytes() {
        #expect(Self.summary().data() == Self.summary().data())
    }

    @Test func aGrowthChartWithoutMeasurementsSaysSo() {
        var document = PDFDocumentBuilder(title: "Chart")
        PDFGrowthChart(title: "Length for age", unit: "cm", bands: Self.bands, measurements: [])
            .draw(into: &document, x: 50, y: 50, width: 495, height: 240)
        let text = Self.text(document.data())
        #expect(text.contains("(No data yet) Tj"))
        for label in ["P3", "P15", "P50", "P85", "P97"] {
            #expect(text.contains("(\(label)) Tj"))
        }
    }

    @Test func popplerReadsTheTextBackAndRendersTheFirstPage() throws {
        let manager = FileManager.default
        let directory = manager.temporaryDirectory.appendingPathComponent("hearth-pdf-\(UUID().uuidString)")
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: directory) }
        let file = directory.appendingPathComponent("summary.pdf")
        try Self.summary().data().write(to: file)

        if manager.isExecutableFile(atPath: Self.pdftotext) {
            let (status, output) = try Self.run(Self.pdftotext, ["-layout", file.path, "-"])
            #expect(status == 0)
            let text = String(decoding: output, as: UTF8.self)
            #expect(text.contains("Pediatrician summary — Maya"))
            #expect(text.contains("Crème fraîche (first taste) at the café, logged from C:\\daycare\\sheet.txt"))
            // A table row stays on one line with its value.
            #expect(text.split(separator: "\n").contains { $0.contains("Naps per day") && $0.contains("3.1") })
            #expect(text.contains("Age (months)") && text.contains("P97"))
            #expect(text.contains("Ask your pediatrician"))
        }

        if manager.isExecutableFile(atPath: Self.pdftoppm) {
            let prefix = directory.appendingPathComponent("page").path
            let (status, _) = try Self.run(Self.pdftoppm, ["-png", "-r", "50", "-f", "1", "-l", "1", file.path, prefix])
            #expect(status == 0)
            let pngs = try manager.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("page") && $0.hasSuffix(".png") }
            #expect(pngs.count == 1)
            if let png = pngs.first {
                let bytes = try Data(contentsOf: directory.appendingPathComponent(png))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
                #expect(bytes.count > 1000)
            }
        }
    }

    /// Runs a tool and returns its exit status and standard output.
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Read before waiting, so a large output cannot fill the pipe and block the tool.
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
