import Foundation

// A small PDF 1.7 writer for the pediatrician summary (issue 37).
//
// No Swift PDF library is in the package mirror, and the summary needs very little of PDF: text in
// two fonts, rectangles, lines and filled shapes on A4 pages. So the project writes its own. The
// output is deliberately plain, because it has to be read back by poppler (`pdftotext`,
// `pdftoppm`) and checked byte for byte in tests:
//
// - Only the standard 14 fonts Helvetica and Helvetica-Bold are used. Every reader has them, so
//   nothing is embedded, and with WinAnsiEncoding a string is one byte per character, which lets
//   us measure text with the Helvetica advance widths below.
// - Content streams are uncompressed and pure ASCII (bytes outside printable ASCII are written as
//   octal escapes), so a test can search them for the drawn text.
// - The output is deterministic: objects are written in a fixed order, numbers with a fixed
//   format, and no date unless the caller passes one.
//
// Coordinates given to the builder are in points with y measured from the TOP of the page, as on
// screen; the builder converts them to PDF's bottom-up space when writing operators.

/// An RGB colour, each component from 0 to 1.
public struct PDFColor: Sendable, Equatable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        // Clamped here so a bad component can never produce an invalid operator.
        self.red = Self.clamp(red)
        self.green = Self.clamp(green)
        self.blue = Self.clamp(blue)
    }

    /// A colour from `0xRRGGBB`.
    public init(hex: UInt32) {
        self.init(red: Double((hex >> 16) & 0xFF) / 255, green: Double((hex >> 8) & 0xFF) / 255, blue: Double(hex & 0xFF) / 255)
    }

    /// A colour from CSS-style `#rrggbb`, so the PDF charts can share the SVG charts' palette;
    /// nil for anything else.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        self.init(hex: value)
    }

    public static let black = PDFColor(red: 0, green: 0, blue: 0)
    public static let white = PDFColor(red: 1, green: 1, blue: 1)
    public static let gray = PDFColor(hex: 0x4B5563)
    public static let lightGray = PDFColor(hex: 0xE5E7EB)

    static func clamp(_ value: Double) -> Double {
        value.isFinite ? min(max(value, 0), 1) : 0
    }

    /// The three components as PDF operands.
    var operands: String {
        "\(SVGDocument.number(red, maxDecimals: 3)) \(SVGDocument.number(green, maxDecimals: 3)) \(SVGDocument.number(blue, maxDecimals: 3))"
    }
}

/// Where a line of text sits relative to the x it is drawn at.
public enum PDFTextAlignment: Sendable, Equatable {
    case left
    case center
    case right
}

/// Builds a PDF document page by page; `data()` writes the file.
///
/// Drawing goes to the current page (the last one started, or the one chosen with `selectPage`);
/// drawing before any `newPage()` starts page 1. All y coordinates are measured from the top of
/// the page; for text, y is the baseline.
public struct PDFDocumentBuilder: Sendable {
    /// A4 in points.
    public static let pageWidth = 595.0
    public static let pageHeight = 842.0

    public let title: String
    /// Written as /CreationDate when given; left out otherwise so the bytes depend only on what
    /// was drawn.
    public let creationDate: Date?

    /// The content stream of each page, pure ASCII.
    private var pages: [String] = []
    public private(set) var currentPageIndex = 0

    public init(title: String, creationDate: Date? = nil) {
        self.title = title
        self.creationDate = creationDate
    }

    public var pageCount: Int { pages.count }

    /// Starts a new page after the last one and makes it current.
    public mutating func newPage() {
        pages.append("")
        currentPageIndex = pages.count - 1
    }

    /// Makes an existing page current, e.g. to stamp "Page 1 of 2" footers once the page count is
    /// known. Indices out of range are clamped.
    public mutating func selectPage(_ index: Int) {
        guard !pages.isEmpty else { return }
        currentPageIndex = min(max(index, 0), pages.count - 1)
    }

    private mutating func append(_ operators: String) {
        if pages.isEmpty { newPage() }
        pages[currentPageIndex] += operators + "\n"
    }

    // MARK: Drawing

    /// One line of text with its baseline at `y` (from the top). Line breaks and tabs become
    /// spaces: use `wrappedText` for several lines.
    public mutating func text(_ s: String, x: Double, y: Double, size: Double, bold: Bool = false,
                              color: PDFColor = .black, alignment: PDFTextAlignment = .left) {
        let bytes = Self.winAnsiBytes(s)
        guard !bytes.isEmpty, size > 0, size.isFinite else { return }
        let width = Self.width(of: bytes, size: size, bold: bold)
        let left: Double
        switch alignment {
        case .left: left = x
        case .center: left = x - width / 2
        case .right: left = x - width
        }
        let font = bold ? "/F2" : "/F1"
        // A full text matrix (Tm) rather than Td, so each string is placed absolutely and the
        // order of drawing calls never shifts text.
        append("q \(color.operands) rg BT \(font) \(Self.n(size)) Tf 1 0 0 1 \(Self.n(left)) \(Self.n(Self.pageHeight - y)) Tm \(Self.literal(bytes)) Tj ET Q")
    }

    /// `s` wrapped into lines no wider than `width`, the first baseline at `y`, each next one
    /// `lineHeight` (default 1.3 × size) lower. Returns the baseline a following line would have.
    /// Does not break pages; `PDFPageLayout.paragraph` does.
    @discardableResult
    public mutating func wrappedText(_ s: String, x: Double, y: Double, width: Double, size: Double, bold: Bool = false,
                                     color: PDFColor = .black, lineHeight: Double? = nil) -> Double {
        let step = lineHeight ?? size * 1.3
        var baseline = y
        for line in Self.wrap(s, width: width, size: size, bold: bold) {
            text(line, x: x, y: baseline, size: size, bold: bold, color: color)
            baseline += step
        }
        return baseline
    }

    /// A solid straight line.
    public mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, color: PDFColor = .black, width: Double = 1) {
        append("q \(strokeState(color, width)) \(Self.point(x1, y1)) m \(Self.point(x2, y2)) l S Q")
    }

    /// A rectangle with its top-left corner at (`x`, `y`), filled and/or stroked; nothing is drawn
    /// when both are nil.
    public mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: PDFColor? = nil,
                              stroke: PDFColor? = nil, lineWidth: Double = 1) {
        guard let paint = Self.paintOperator(fill: fill, stroke: stroke) else { return }
        // `re` takes the lower-left corner in PDF space, which is the bottom of the rectangle.
        let path = "\(Self.n(x)) \(Self.n(Self.pageHeight - y - height)) \(Self.n(width)) \(Self.n(height)) re"
        append("q \(paintState(fill: fill, stroke: stroke, lineWidth: lineWidth)) \(path) \(paint) Q")
    }

    /// An open line through `points` with round joins (data lines in charts).
    public mutating func polyline(_ points: [(Double, Double)], color: PDFColor = .black, width: Double = 1) {
        guard points.count > 1 else { return }
        append("q \(strokeState(color, width)) 1 J 1 j \(Self.path(points)) S Q")
    }

    /// A closed shape through `points`, filled and/or stroked (percentile bands in charts).
    public mutating func polygon(_ points: [(Double, Double)], fill: PDFColor? = nil, stroke: PDFColor? = nil, lineWidth: Double = 1) {
        guard points.count > 2, let paint = Self.paintOperator(fill: fill, stroke: stroke) else { return }
        append("q \(paintState(fill: fill, stroke: stroke, lineWidth: lineWidth)) 1 j \(Self.path(points)) h \(paint) Q")
    }

    /// A circle centred at (`x`, `y`), made of four Bézier arcs (PDF has no circle operator).
    public mutating func circle(x: Double, y: Double, radius: Double, fill: PDFColor? = nil, stroke: PDFColor? = nil,
                                lineWidth: Double = 1) {
        guard radius > 0, let paint = Self.paintOperator(fill: fill, stroke: stroke) else { return }
        let k = radius * 0.5523 // control-point distance for a quarter circle
        let r = radius
        let path = [
            "\(Self.point(x + r, y)) m",
            "\(Self.point(x + r, y - k)) \(Self.point(x + k, y - r)) \(Self.point(x, y - r)) c",
            "\(Self.point(x - k, y - r)) \(Self.point(x - r, y - k)) \(Self.point(x - r, y)) c",
            "\(Self.point(x - r, y + k)) \(Self.point(x - k, y + r)) \(Self.point(x, y + r)) c",
            "\(Self.point(x + k, y + r)) \(Self.point(x + r, y + k)) \(Self.point(x + r, y)) c",
        ].joined(separator: " ")
        append("q \(paintState(fill: fill, stroke: stroke, lineWidth: lineWidth)) \(path) h \(paint) Q")
    }

    /// Colour, width and a solid line (`[] 0 d`), set inside each stroke's own `q … Q`.
    private func strokeState(_ color: PDFColor, _ width: Double) -> String {
        "\(color.operands) RG \(Self.n(max(width, 0))) w [] 0 d"
    }

    private func paintState(fill: PDFColor?, stroke: PDFColor?, lineWidth: Double) -> String {
        var parts: [String] = []
        if let fill { parts.append("\(fill.operands) rg") }
        if let stroke { parts.append("\(stroke.operands) RG \(Self.n(max(lineWidth, 0))) w") }
        return parts.joined(separator: " ")
    }

    private static func paintOperator(fill: PDFColor?, stroke: PDFColor?) -> String? {
        switch (fill, stroke) {
        case (.some, .some): return "B"
        case (.some, nil): return "f"
        case (nil, .some): return "S"
        case (nil, nil): return nil
        }
    }

    private static func path(_ points: [(Double, Double)]) -> String {
        points.enumerated().map { "\(point($0.element.0, $0.element.1)) \($0.offset == 0 ? "m" : "l")" }.joined(separator: " ")
    }

    /// A point as PDF operands, flipped to bottom-up.
    private static func point(_ x: Double, _ y: Double) -> String {
        "\(n(x)) \(n(pageHeight - y))"
    }

    /// Numbers as PDF reals: at most two decimals (1/100 pt is far below what shows), never an
    /// exponent, which PDF does not allow.
    static func n(_ value: Double) -> String {
        SVGDocument.number(value, maxDecimals: 2)
    }

    // MARK: Text encoding and measuring

    /// `s` as WinAnsiEncoding (Windows code page 1252) bytes, as the fonts are declared: composed
    /// first (so an "e" and a combining accent become "é"), line breaks and tabs made spaces,
    /// common typographic spaces and hyphens made their plain forms (Foundation's time formats
    /// use U+202F before "AM"). A run of characters outside code page 1252 is transliterated to
    /// Latin without accents (ICU's transforms: "Łucja" → "Lucja", "李小龍" → "li xiao long",
    /// "Привет" → "Privet"), so a child's or a food's name stays readable on the page; what
    /// still has no Latin form (emoji) is "?".
    public static func winAnsiBytes(_ s: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var foreign = String.UnicodeScalarView()
        func flushForeign() {
            guard !foreign.isEmpty else { return }
            for scalar in transliterated(String(foreign)).unicodeScalars {
                bytes.append(winAnsiByte(scalar) ?? 0x3F)
            }
            foreign.removeAll()
        }
        for scalar in s.precomposedStringWithCanonicalMapping.unicodeScalars {
            if let byte = winAnsiByte(scalar) {
                flushForeign()
                bytes.append(byte)
            } else {
                foreign.append(scalar)
            }
        }
        flushForeign()
        return bytes
    }

    /// Letters ICU's Latin transform keeps as they are, with no code page 1252 form.
    static let latinFallbacks: [Character: String] = [
        "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h", "ı": "i", "ẞ": "SS", "Ŋ": "N", "ŋ": "n", "Ŧ": "T", "ŧ": "t",
    ]

    static func transliterated(_ text: String) -> String {
        let latin = text.applyingTransform(.toLatin, reverse: false) ?? text
        let plain = latin.applyingTransform(.stripDiacritics, reverse: false) ?? latin
        return String(plain.flatMap { latinFallbacks[$0] ?? String($0) }).precomposedStringWithCanonicalMapping
    }

    /// The byte of `scalar` in code page 1252, nil when it has none.
    static func winAnsiByte(_ scalar: Unicode.Scalar) -> UInt8? {
        let value = scalar.value
        switch value {
        case 0x20...0x7E, 0xA0...0xFF:
            return UInt8(value)
        case 0x09, 0x0A, 0x0D, 0x2002...0x200A, 0x202F, 0x205F:
            return 0x20
        case 0x2010, 0x2011, 0x2212:
            return 0x2D
        default:
            return cp1252Extras[value]
        }
    }

    /// The code points code page 1252 puts at 0x80–0x9F (where Latin-1 has control characters).
    static let cp1252Extras: [UInt32: UInt8] = [
        0x20AC: 0x80, 0x201A: 0x82, 0x0192: 0x83, 0x201E: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87,
        0x02C6: 0x88, 0x2030: 0x89, 0x0160: 0x8A, 0x2039: 0x8B, 0x0152: 0x8C, 0x017D: 0x8E, 0x2018: 0x91,
        0x2019: 0x92, 0x201C: 0x93, 0x201D: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02DC: 0x98,
        0x2122: 0x99, 0x0161: 0x9A, 0x203A: 0x9B, 0x0153: 0x9C, 0x017E: 0x9E, 0x0178: 0x9F,
    ]

    /// A PDF string literal of `bytes`: parentheses and backslashes escaped, and everything outside
    /// printable ASCII written as a three-digit octal escape so content streams stay ASCII.
    static func literal(_ bytes: [UInt8]) -> String {
        var out = "("
        for byte in bytes {
            switch byte {
            case 0x28, 0x29, 0x5C:
                out += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E:
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let octal = String(byte, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return out + ")"
    }

    /// The width of `s` in points when drawn at `size`, from the Helvetica advance widths.
    public static func textWidth(_ s: String, size: Double, bold: Bool = false) -> Double {
        width(of: winAnsiBytes(s), size: size, bold: bold)
    }

    static func width(of bytes: [UInt8], size: Double, bold: Bool) -> Double {
        let table = bold ? HelveticaMetrics.bold : HelveticaMetrics.regular
        return Double(bytes.reduce(0) { $0 + table[Int($1)] }) * size / 1000
    }

    /// `s` broken into lines no wider than `width` at `size`: at spaces where possible, inside a
    /// word only when the word alone is too wide. Line breaks in `s` are kept (an empty line for
    /// a blank one); runs of spaces collapse to one.
    public static func wrap(_ s: String, width: Double, size: Double, bold: Bool = false) -> [String] {
        let fits = { (candidate: String) in textWidth(candidate, size: size, bold: bold) <= width + 1e-9 }
        var lines: [String] = []
        let paragraphs = s.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        for paragraph in paragraphs {
            let words = paragraph.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard !words.isEmpty else {
                lines.append("")
                continue
            }
            var current = ""
            for word in words {
                let candidate = current.isEmpty ? word : current + " " + word
                if fits(candidate) {
                    current = candidate
                    continue
                }
                if !current.isEmpty { lines.append(current) }
                current = ""
                // A word wider than the line is cut into pieces that fit (at least one character
                // each, so a very narrow width still terminates).
                var piece = ""
                for character in word {
                    let longer = piece + String(character)
                    if fits(longer) || piece.isEmpty {
                        piece = longer
                    } else {
                        lines.append(piece)
                        piece = String(character)
                    }
                }
                current = piece
            }
            lines.append(current)
        }
        return lines
    }

    // MARK: Writing the file

    /// The PDF file: catalog, page tree, the two fonts, /Info, then each page and its content
    /// stream, a cross-reference table with the byte offset of every object, and the trailer.
    /// A document with nothing drawn gets one blank page, so the file is always a valid one.
    public func data() -> Data {
        let contents = pages.isEmpty ? [""] : pages
        // Fixed object numbers: 1 catalog, 2 pages, 3 Helvetica, 4 Helvetica-Bold, 5 info, then
        // page i is 6 + 2i and its content stream 7 + 2i.
        let pageObject = { (index: Int) in 6 + 2 * index }
        var objects: [[UInt8]] = []
        objects.append(Array("<< /Type /Catalog /Pages 2 0 R >>".utf8))
        let kids = contents.indices.map { "\(pageObject($0)) 0 R" }.joined(separator: " ")
        objects.append(Array("<< /Type /Pages /Kids [\(kids)] /Count \(contents.count) >>".utf8))
        // No /Widths: for the standard 14 fonts readers use their exact built-in metrics, which our
        // approximate table (meant only for wrapping) would override.
        objects.append(Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".utf8))
        objects.append(Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".utf8))
        var info = "<< /Title \(Self.textString(title)) /Producer (Hearth)"
        if let creationDate { info += " /CreationDate (\(Self.pdfDate(creationDate)))" }
        objects.append(Array((info + " >>").utf8))
        let resources = "<< /Font << /F1 3 0 R /F2 4 0 R >> >>"
        let mediaBox = "[0 0 \(Self.n(Self.pageWidth)) \(Self.n(Self.pageHeight))]"
        for (index, content) in contents.enumerated() {
            objects.append(Array("<< /Type /Page /Parent 2 0 R /MediaBox \(mediaBox) /Resources \(resources) /Contents \(pageObject(index) + 1) 0 R >>".utf8))
            let stream = Array(content.utf8)
            // /Length counts the bytes between the EOL after `stream` and the EOL before
            // `endstream`, neither included.
            objects.append(Array("<< /Length \(stream.count) >>\nstream\n".utf8) + stream + Array("\nendstream".utf8))
        }

        // The binary comment on line 2 tells transfer tools the file is binary, as the spec advises.
        var out: [UInt8] = Array("%PDF-1.7\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
        }
        let xrefOffset = out.count
        // Each entry is exactly 20 bytes: 10-digit offset, space, 5-digit generation, space, type,
        // and a two-character end of line (space + LF).
        var xref = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            xref += String(repeating: "0", count: max(0, 10 - digits.count)) + digits + " 00000 n \n"
        }
        xref += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info 5 0 R >>\nstartxref\n\(xrefOffset)\n%%EOF\n"
        out += Array(xref.utf8)
        return Data(out)
    }

    /// A text string for /Info: UTF-16BE with a byte order mark, as hex, so any title (an em dash,
    /// a name in any script) survives; the document-information strings do not use WinAnsi.
    static func textString(_ s: String) -> String {
        var hex = "<FEFF"
        for unit in s.utf16 {
            let digits = String(unit, radix: 16, uppercase: true)
            hex += String(repeating: "0", count: 4 - digits.count) + digits
        }
        return hex + ">"
    }

    /// `D:YYYYMMDDHHmmSSZ` in UTC, computed from the epoch without calendars or time zones so it is
    /// the same on every machine.
    static func pdfDate(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Days since 1970-01-01 to a proleptic Gregorian date (the "civil from days" algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        return "D:" + String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + two(month) + two(day)
            + two(secondOfDay / 3600) + two(secondOfDay / 60 % 60) + two(secondOfDay % 60) + "Z"
    }
}

/// Advance widths of Helvetica and Helvetica-Bold (in 1/1000 em) for the 256 WinAnsi codes.
///
/// Codes 32–126 are the fonts' AFM widths, written out from the published metrics. Above 126 an
/// accented letter takes its base letter's width (close to the real metrics), a few symbols have
/// their own, and anything else gets an average lowercase width. Control codes are zero. This
/// only has to be close enough for wrapping and centring; a reader draws with its own metrics.
enum HelveticaMetrics {
    /// Helvetica, codes 32 (space) to 126 (asciitilde); 39 is quotesingle and 96 grave, as in
    /// WinAnsiEncoding.
    static let regularASCII: [Int] = [
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space … /
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 … ?
        1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ … O
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P … _
        333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` … o
        556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p … ~
    ]

    /// Helvetica-Bold, codes 32 to 126.
    static let boldASCII: [Int] = [
        278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // space … /
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // 0 … ?
        975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // @ … O
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // P … _
        333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // ` … o
        611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, // p … ~
    ]

    /// Codes above 126 that are not accented letters: (regular, bold).
    static let symbols: [UInt8: (Int, Int)] = [
        0x80: (556, 556), 0x82: (222, 278), 0x83: (556, 556), 0x84: (333, 500), 0x85: (1000, 1000),
        0x86: (556, 556), 0x87: (556, 556), 0x88: (333, 333), 0x89: (1000, 1000), 0x8B: (333, 333),
        0x8C: (1000, 1000), 0x91: (222, 278), 0x92: (222, 278), 0x93: (333, 500), 0x94: (333, 500),
        0x95: (350, 350), 0x96: (556, 556), 0x97: (1000, 1000), 0x98: (333, 333), 0x99: (1000, 1000),
        0x9B: (333, 333), 0x9C: (944, 944), 0xA0: (278, 278), 0xA1: (333, 333), 0xA2: (556, 556),
        0xA3: (556, 556), 0xA4: (556, 556), 0xA5: (556, 556), 0xA6: (260, 280), 0xA7: (556, 556),
        0xA8: (333, 333), 0xA9: (737, 737), 0xAA: (370, 370), 0xAB: (556, 556), 0xAC: (584, 584),
        0xAD: (333, 333), 0xAE: (737, 737), 0xAF: (333, 333), 0xB0: (400, 400), 0xB1: (584, 584),
        0xB2: (333, 333), 0xB3: (333, 333), 0xB4: (333, 333), 0xB5: (556, 611), 0xB6: (537, 556),
        0xB7: (278, 278), 0xB8: (333, 333), 0xB9: (333, 333), 0xBA: (365, 365), 0xBB: (556, 556),
        0xBC: (834, 834), 0xBD: (834, 834), 0xBE: (834, 834), 0xBF: (611, 611), 0xC6: (1000, 1000),
        0xD0: (722, 722), 0xD7: (584, 584), 0xD8: (778, 778), 0xDE: (667, 667), 0xDF: (611, 611),
        0xE6: (889, 889), 0xF0: (556, 611), 0xF7: (584, 584), 0xF8: (611, 611), 0xFE: (556, 611),
    ]

    static let regular = table(ascii: regularASCII, bold: false)
    static let bold = table(ascii: boldASCII, bold: true)

    static func table(ascii: [Int], bold: Bool) -> [Int] {
        var widths = [Int](repeating: 0, count: 256)
        for (index, width) in ascii.enumerated() { widths[32 + index] = width }
        let byCode = Dictionary(uniqueKeysWithValues: PDFDocumentBuilder.cp1252Extras.map { ($0.value, $0.key) })
        for code in 127...255 {
            let byte = UInt8(code)
            if let symbol = symbols[byte] {
                widths[code] = bold ? symbol.1 : symbol.0
                continue
            }
            let scalarValue = code >= 0xA0 ? UInt32(code) : byCode[byte]
            guard let scalarValue, let scalar = Unicode.Scalar(scalarValue) else { continue }
            // An accented letter measures as its base letter: "é" decomposes to "e" + accent.
            if let base = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars.first,
               (0x20...0x7E).contains(base.value) {
                widths[code] = ascii[Int(base.value) - 32]
            } else {
                widths[code] = bold ? 611 : 556
            }
        }
        return widths
    }
}

/// Lays blocks out down the page, top to bottom, starting a new page when the next block would
/// not fit, so a long narrative or long parent notes flow onto page 2 instead of off the page.
///
/// `cursor` is the y (from the top) where the next block starts. Paragraphs are placed line by line
/// and may break across pages; table rows, headings (with room for what follows) and reserved
/// blocks such as a chart are kept whole.
public struct PDFPageLayout: Sendable {
    public var document: PDFDocumentBuilder
    public let margin: Double
    /// Space kept free at the bottom of every page, e.g. for footers.
    public let bottomMargin: Double
    public private(set) var cursor: Double

    /// Starts a page in `document` when it has none; otherwise continues on a fresh page, so
    /// earlier drawing is never overlapped.
    public init(document: PDFDocumentBuilder, margin: Double = 50, bottomMargin: Double? = nil) {
        self.document = document
        self.margin = max(0, margin)
        self.bottomMargin = max(0, bottomMargin ?? margin)
        self.document.newPage()
        self.cursor = self.margin
    }

    public var left: Double { margin }
    public var contentWidth: Double { PDFDocumentBuilder.pageWidth - 2 * margin }
    /// The lowest y a block may reach on a page.
    public var bottom: Double { PDFDocumentBuilder.pageHeight - bottomMargin }
    public var remainingHeight: Double { bottom - cursor }

    public mutating func startNewPage() {
        document.newPage()
        cursor = margin
    }

    /// Starts a new page unless `height` fits below the cursor. A block taller than a whole page
    /// is not split: it starts on a fresh page (unless already at the top) and overflows there.
    /// Returns whether a page was started.
    @discardableResult
    public mutating func ensureSpace(_ height: Double) -> Bool {
        guard cursor + height > bottom, cursor > margin else { return false }
        startNewPage()
        return true
    }

    /// Vertical space; never carried onto a new page.
    public mutating func space(_ height: Double) {
        cursor = min(cursor + max(0, height), bottom)
    }

    /// Makes room for a block of `height` (on a new page when needed) and returns its top y.
    public mutating func reserve(_ height: Double) -> Double {
        ensureSpace(height)
        let top = cursor
        cursor += height
        return top
    }

    /// Where to put the baseline in a line box of `lineHeight` starting at `top`: the Helvetica
    /// ascender (0.718 em) and descender (0.207 em) centred in the box.
    static func baseline(top: Double, size: Double, lineHeight: Double) -> Double {
        top + (lineHeight - 0.925 * size) / 2 + 0.718 * size
    }

    /// A bold heading kept on the same page as at least `keepWithNext` points of what follows.
    public mutating func heading(_ s: String, size: Double = 13, color: PDFColor = .black, keepWithNext: Double = 40) {
        let lineHeight = size * 1.3
        let lines = PDFDocumentBuilder.wrap(s, width: contentWidth, size: size, bold: true)
        ensureSpace(Double(lines.count) * lineHeight + keepWithNext)
        for line in lines {
            document.text(line, x: left, y: Self.baseline(top: cursor, size: size, lineHeight: lineHeight), size: size, bold: true, color: color)
            cursor += lineHeight
        }
        cursor += size * 0.25
    }

    /// Wrapped text, `indent` from the left margin, flowing onto new pages as needed.
    public mutating func paragraph(_ s: String, size: Double = 10, bold: Bool = false, color: PDFColor = .black,
                                   lineHeight: Double? = nil, indent: Double = 0, spacingAfter: Double = 6) {
        let step = lineHeight ?? size * 1.35
        for line in PDFDocumentBuilder.wrap(s, width: contentWidth - indent, size: size, bold: bold) {
            ensureSpace(step)
            document.text(line, x: left + indent, y: Self.baseline(top: cursor, size: size, lineHeight: step), size: size, bold: bold, color: color)
            cursor += step
        }
        space(spacingAfter)
    }

    /// A bulleted item: "•" in the margin and the text wrapped beside it.
    public mutating func bullet(_ s: String, size: Double = 10, color: PDFColor = .black, spacingAfter: Double = 2) {
        let step = size * 1.35
        let indent = size * 1.2
        ensureSpace(step)
        document.text("\u{2022}", x: left + size * 0.3, y: Self.baseline(top: cursor, size: size, lineHeight: step), size: size, color: color)
        paragraph(s, size: size, color: color, lineHeight: step, indent: indent, spacingAfter: spacingAfter)
    }

    /// A table: a shaded bold header row, then the rows, each cell wrapped in its column. Columns
    /// get `columnFractions` of the content width (equal shares when nil or mismatched); a column
    /// listed in `rightAligned` has its text aligned right (numbers). A row that does not fit
    /// starts a new page, where the header is drawn again.
    public mutating func table(header: [String], rows: [[String]], columnFractions: [Double]? = nil,
                               rightAligned: Set<Int> = [], size: Double = 9.5, spacingAfter: Double = 10) {
        let columns = max(header.count, rows.map(\.count).max() ?? 0)
        guard columns > 0 else { return }
        var fractions = columnFractions ?? []
        if fractions.count != columns || fractions.contains(where: { !($0 > 0) }) {
            fractions = Array(repeating: 1, count: columns)
        }
        let total = fractions.reduce(0, +)
        let widths = fractions.map { $0 / total * contentWidth }
        let padding = 4.0
        let lineHeight = size * 1.3
        let headerFill = PDFColor(hex: 0xE5E7EB)
        let stripeFill = PDFColor(hex: 0xF9FAFB)
        let ruleColor = PDFColor(hex: 0xD1D5DB)

        func cellLines(_ row: [String], bold: Bool) -> [[String]] {
            (0..<columns).map { column in
                let text = column < row.count ? row[column] : ""
                return PDFDocumentBuilder.wrap(text, width: widths[column] - 2 * padding, size: size, bold: bold)
            }
        }
        func height(_ lines: [[String]]) -> Double {
            Double(max(1, lines.map(\.count).max() ?? 1)) * lineHeight + 2 * padding
        }
        func draw(_ lines: [[String]], bold: Bool, fill: PDFColor?) {
            let rowHeight = height(lines)
            if let fill {
                document.rect(x: left, y: cursor, width: contentWidth, height: rowHeight, fill: fill)
            }
            var x = left
            for (column, cell) in lines.enumerated() {
                for (index, line) in cell.enumerated() {
                    let top = cursor + padding + Double(index) * lineHeight
                    let baseline = Self.baseline(top: top, size: size, lineHeight: lineHeight)
                    if rightAligned.contains(column) {
                        document.text(line, x: x + widths[column] - padding, y: baseline, size: size, bold: bold, alignment: .right)
                    } else {
                        document.text(line, x: x + padding, y: baseline, size: size, bold: bold)
                    }
                }
                x += widths[column]
            }
            cursor += rowHeight
            document.line(x1: left, y1: cursor, x2: left + contentWidth, y2: cursor, color: ruleColor, width: 0.5)
        }

        let headerLines = header.isEmpty ? nil : cellLines(header, bold: true)
        let firstRowHeight = rows.first.map { height(cellLines($0, bold: false)) } ?? 0
        ensureSpace((headerLines.map(height) ?? 0) + firstRowHeight)
        if let headerLines { draw(headerLines, bold: true, fill: headerFill) }
        for (index, row) in rows.enumerated() {
            let lines = cellLines(row, bold: false)
            if ensureSpace(height(lines)), let headerLines {
                draw(headerLines, bold: true, fill: headerFill)
            }
            draw(lines, bold: false, fill: index % 2 == 1 ? stripeFill : nil)
        }
        space(spacingAfter)
    }

    /// Draws `text(page, pageCount)` centred at the bottom of every page (page numbers from 1),
    /// inside the bottom margin. Call once, after the last block, when the page count is final.
    public mutating func addFooters(size: Double = 8, color: PDFColor = .gray, _ text: (Int, Int) -> String) {
        let count = document.pageCount
        let current = document.currentPageIndex
        for page in 0..<count {
            document.selectPage(page)
            let baseline = PDFDocumentBuilder.pageHeight - bottomMargin / 2
            document.text(text(page + 1, count), x: PDFDocumentBuilder.pageWidth / 2, y: baseline, size: size, color: color, alignment: .center)
        }
        document.selectPage(current)
    }

    public func data() -> Data {
        document.data()
    }
}
