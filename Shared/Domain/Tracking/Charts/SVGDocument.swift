import Foundation

/// A tiny SVG writer for the tracking charts.
///
/// Every document starts with the same root element (SVG namespace, `viewBox`, `width`, `height`,
/// `role="img"`, a system font), then `<title>` and `<desc>` for screen readers and a white
/// background. Text and attribute values are escaped; characters XML 1.0 does not allow are
/// dropped, so any input yields a well-formed document. Numbers are written with at most two
/// decimals, a `.` separator and no exponent, whatever the locale. The output depends only on
/// what was appended: the same document always renders to the same bytes. Nothing is ever
/// referenced outside the document and no scripts are written.
public struct SVGDocument: Sendable {
    public static let namespace = "http://www.w3.org/2000/svg"
    public static let fontFamily = "system-ui, sans-serif"
    public static let fontSize = 12

    public let width: Int
    public let height: Int
    public let title: String
    public let description: String
    public private(set) var elements: [SVGElement] = []

    public init(width: Int, height: Int, title: String, description: String) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.title = title
        self.description = description
    }

    public mutating func append(_ element: SVGElement) {
        elements.append(element)
    }

    public mutating func append(contentsOf elements: [SVGElement]) {
        self.elements.append(contentsOf: elements)
    }

    public func render() -> String {
        var out = "<svg xmlns=\"\(Self.namespace)\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\""
        out += " role=\"img\" font-family=\"\(Self.escapeAttribute(Self.fontFamily))\" font-size=\"\(Self.fontSize)\">\n"
        out += "  <title>\(Self.escapeText(title))</title>\n"
        out += "  <desc>\(Self.escapeText(description))</desc>\n"
        out += "  <rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>\n"
        for element in elements {
            element.write(into: &out, depth: 1)
        }
        out += "</svg>\n"
        return out
    }

    // MARK: Escaping

    /// Escapes character data (`&`, `<`, `>`) and drops characters XML 1.0 does not allow.
    public static func escapeText(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: if isXMLCharacter(scalar) { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// Escapes a value for a double-quoted attribute: as text, plus both quotes, and tab and
    /// line breaks as character references so attribute normalisation keeps them.
    public static func escapeAttribute(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default: if isXMLCharacter(scalar) { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// `Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`
    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    // MARK: Numbers

    /// Formats a number with at most `maxDecimals` decimals (0...6, default 2), trailing zeros
    /// removed, `.` as separator, no grouping, no exponent and never `-0`. Non-finite values are
    /// written as `0`; magnitudes are capped at 10^12, far outside any drawing.
    public static func number(_ value: Double, maxDecimals: Int = 2) -> String {
        let decimals = min(max(maxDecimals, 0), 6)
        guard value.isFinite else { return "0" }
        let clamped = min(max(value, -1e12), 1e12)
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((clamped * Double(scale)).rounded(.toNearestOrAwayFromZero))
        if scaled == 0 { return "0" }
        let magnitude = scaled.magnitude
        let whole = magnitude / UInt64(scale)
        var fraction = magnitude % UInt64(scale)
        var out = scaled < 0 ? "-\(whole)" : "\(whole)"
        guard fraction != 0 else { return out }
        var digits = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let fractionText = String(fraction)
        out += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        return out
    }

    /// `x,y x,y …` for `points` of a polyline or polygon.
    public static func pointList(_ points: [(x: Double, y: Double)]) -> String {
        points.map { "\(number($0.x)),\(number($0.y))" }.joined(separator: " ")
    }

    /// Path data through `points` (`M x y L x y …`), closed with `Z` when asked.
    public static func pathData(_ points: [(x: Double, y: Double)], closed: Bool = false) -> String {
        var parts: [String] = []
        for (index, point) in points.enumerated() {
            parts.append("\(index == 0 ? "M" : "L")\(number(point.x)) \(number(point.y))")
        }
        if closed, !parts.isEmpty { parts.append("Z") }
        return parts.joined(separator: " ")
    }

    /// A rough width of `text` in the chart font, for laying out legends and labels.
    public static func estimatedTextWidth(_ text: String, fontSize: Double = Double(SVGDocument.fontSize)) -> Double {
        Double(text.count) * fontSize * 0.58
    }
}

/// An attribute of an `SVGElement`; the value is escaped when written.
public struct SVGAttribute: Sendable, Equatable {
    public let name: String
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One SVG element with its attributes, optional text and children. Element and attribute names
/// are written as given (they come from the chart code); text and values are escaped.
public struct SVGElement: Sendable {
    public var name: String
    public var attributes: [SVGAttribute]
    public var text: String?
    public var children: [SVGElement]

    public init(_ name: String, _ attributes: [(String, String)] = [], text: String? = nil, children: [SVGElement] = []) {
        self.name = name
        self.attributes = attributes.map { SVGAttribute($0.0, $0.1) }
        self.text = text
        self.children = children
    }

    public static func rect(x: Double, y: Double, width: Double, height: Double, _ attributes: [(String, String)] = [],
                            children: [SVGElement] = []) -> SVGElement {
        SVGElement("rect", [("x", SVGDocument.number(x)), ("y", SVGDocument.number(y)),
                            ("width", SVGDocument.number(max(0, width))), ("height", SVGDocument.number(max(0, height)))] + attributes,
                   children: children)
    }

    public static func line(x1: Double, y1: Double, x2: Double, y2: Double, _ attributes: [(String, String)] = []) -> SVGElement {
        SVGElement("line", [("x1", SVGDocument.number(x1)), ("y1", SVGDocument.number(y1)),
                            ("x2", SVGDocument.number(x2)), ("y2", SVGDocument.number(y2))] + attributes)
    }

    public static func circle(cx: Double, cy: Double, r: Double, _ attributes: [(String, String)] = [],
                              children: [SVGElement] = []) -> SVGElement {
        SVGElement("circle", [("cx", SVGDocument.number(cx)), ("cy", SVGDocument.number(cy)), ("r", SVGDocument.number(max(0, r)))] + attributes,
                   children: children)
    }

    public static func text(_ content: String, x: Double, y: Double, _ attributes: [(String, String)] = []) -> SVGElement {
        SVGElement("text", [("x", SVGDocument.number(x)), ("y", SVGDocument.number(y))] + attributes, text: content)
    }

    public static func path(_ data: String, _ attributes: [(String, String)] = []) -> SVGElement {
        SVGElement("path", [("d", data)] + attributes)
    }

    public static func polyline(_ points: [(x: Double, y: Double)], _ attributes: [(String, String)] = []) -> SVGElement {
        SVGElement("polyline", [("points", SVGDocument.pointList(points))] + attributes)
    }

    public static func group(_ attributes: [(String, String)] = [], children: [SVGElement]) -> SVGElement {
        SVGElement("g", attributes, children: children)
    }

    /// A `<title>` child: the tooltip and accessible name of its parent.
    public static func title(_ text: String) -> SVGElement {
        SVGElement("title", text: text)
    }

    func write(into out: inout String, depth: Int) {
        let indent = String(repeating: "  ", count: depth)
        out += indent
        writeInline(into: &out, depth: depth, indent: indent)
        out += "\n"
    }

    /// Elements with text keep their children on the same line, so no whitespace is added to
    /// the text; other elements put each child on its own line.
    private func writeInline(into out: inout String, depth: Int, indent: String) {
        out += "<\(name)"
        for attribute in attributes {
            out += " \(attribute.name)=\"\(SVGDocument.escapeAttribute(attribute.value))\""
        }
        if text == nil, children.isEmpty {
            out += "/>"
            return
        }
        out += ">"
        if let text {
            out += SVGDocument.escapeText(text)
            for child in children {
                child.writeInline(into: &out, depth: depth + 1, indent: indent)
            }
        } else {
            out += "\n"
            for child in children {
                child.write(into: &out, depth: depth + 1)
            }
            out += indent
        }
        out += "</\(name)>"
    }
}

/// Round axis ranges and ticks shared by the charts.
enum ChartTicks {
    /// The smallest of 1, 2, 2.5 and 5 times a power of ten that is at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw.isFinite, raw > 0 else { return 1 }
        let base = pow(10, log10(raw).rounded(.down))
        for multiple in [1.0, 2, 2.5, 5] where multiple * base >= raw * (1 - 1e-9) {
            return multiple * base
        }
        return 10 * base
    }

    /// The smallest of 1, 2 and 5 times a power of ten (at least 1) that is at least `raw`.
    static func niceIntegerStep(_ raw: Double) -> Double {
        guard raw.isFinite, raw > 1 else { return 1 }
        let base = pow(10, log10(raw).rounded(.down))
        for multiple in [1.0, 2, 5] where multiple * base >= raw * (1 - 1e-9) {
            return multiple * base
        }
        return 10 * base
    }

    /// A range covering `lower...upper` on multiples of a round step, about `steps` steps long.
    static func range(_ lower: Double, _ upper: Double, steps: Int) -> (lower: Double, upper: Double, step: Double) {
        let span = upper - lower
        let step = niceStep(span > 0 ? span / Double(max(1, steps)) : max(abs(upper), 1) / Double(max(1, steps)))
        let low = (lower / step).rounded(.down) * step
        var high = (upper / step).rounded(.up) * step
        if high <= low { high = low + step }
        return (low, high, step)
    }

    /// The tick values from `lower` to `upper` by `step`, computed by index (no accumulated error).
    static func values(_ lower: Double, _ upper: Double, step: Double) -> [Double] {
        guard step > 0, upper >= lower else { return [lower] }
        let count = Int(((upper - lower) / step).rounded())
        return (0...min(count, 1000)).map { lower + Double($0) * step }
    }
}

/// Short labels for calendar days given as `YYYY-MM-DD`, in English, computed without calendars
/// or locales so they are the same everywhere. Strings that are not such a date are shown as is.
enum ChartDay {
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        return (year, month, day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (proleptic Gregorian).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// "Mon", or nil when `text` is not a date.
    static func weekday(_ text: String) -> String? {
        guard let date = parse(text) else { return nil }
        let days = daysSinceEpoch(year: date.year, month: date.month, day: date.day)
        return weekdays[((days % 7) + 7 + 3) % 7]  // 1970-01-01 was a Thursday.
    }

    /// "2 Mar", or `text` itself when it is not a date.
    static func dayMonth(_ text: String) -> String {
        guard let date = parse(text) else { return text }
        return "\(date.day) \(months[date.month - 1])"
    }

    /// "Mon 2 Mar", or `text` itself when it is not a date.
    static func long(_ text: String) -> String {
        guard let weekday = weekday(text) else { return text }
        return "\(weekday) \(dayMonth(text))"
    }
}
