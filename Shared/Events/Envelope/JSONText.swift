/// Compact JSON text written by hand, for the few hot paths where `JSONEncoder`'s generic
/// machinery costs more than the work around it (an assist run's plan is encoded once per run
/// on the stream's critical path). Output is what `JSONEncoder` with `.withoutEscapingSlashes`
/// would accept back; key order of `JSONValue` objects is unspecified, as with `JSONEncoder`.
public enum JSONText {
    public struct NonFiniteNumber: Error, CustomStringConvertible {
        public let value: Double
        public var description: String { "\(value) cannot be written as JSON" }
    }

    /// Appends `text` as a JSON string literal.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)  // UTF-8 passes through, as JSON allows
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a number: whole numbers without a fraction, as `JSONEncoder` writes them.
    public static func appendNumber(_ value: Double, to out: inout [UInt8]) throws {
        guard value.isFinite else { throw NonFiniteNumber(value: value) }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            out.append(contentsOf: String(Int64(value)).utf8)
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    public static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }
}

extension JSONValue {
    /// This value as compact JSON text.
    public func write(to out: inout [UInt8]) throws {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): try JSONText.appendNumber(value, to: &out)
        case .string(let value): JSONText.appendString(value, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in fields {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONText.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                try value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
