/// Finds values inside JSON text without decoding it: the byte range of each wanted field of an
/// object, so a value can be passed on exactly as it was written.
///
/// For readers that forward a large nested value untouched (an assist run's event `data` goes
/// from Kafka to HTTP streams and to the replay table as is): decoding it into `JSONValue` and
/// encoding it again would cost more than everything else they do, and could reorder its keys.
/// Validation is shallow: a document that is not well-formed JSON answers nil or wrong ranges,
/// so only use it on text a JSON encoder produced (Kafka values of the event catalogue).
public enum RawJSON {
    /// The ranges of the values of `keys` in the object starting at `start` (leading whitespace
    /// allowed). Keys are matched as written (Hearth's keys need no escapes). Nil when there is
    /// no object there.
    public static func fields(_ keys: Set<String>, inObjectAt start: Int = 0, of bytes: [UInt8]) -> [String: Range<Int>]? {
        let wanted = Array(keys)
        guard let ranges = fieldRanges(wanted.map { Array($0.utf8) }, inObjectAt: start, of: bytes) else { return nil }
        var found: [String: Range<Int>] = [:]
        for (key, range) in zip(wanted, ranges) { if let range { found[key] = range } }
        return found
    }

    /// `fields` for a hot path: the keys as UTF-8 bytes, the answer in their order (nil where a
    /// key is absent). Keys are compared byte by byte: no string is made and nothing is hashed.
    public static func fieldRanges(_ keys: [[UInt8]], inObjectAt start: Int = 0, of bytes: [UInt8]) -> [Range<Int>?]? {
        var scanner = Scanner(bytes: bytes, index: start)
        scanner.skipWhitespace()
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        var found = [Range<Int>?](repeating: nil, count: keys.count)
        scanner.skipWhitespace()
        if scanner.consume(UInt8(ascii: "}")) { return found }
        while true {
            scanner.skipWhitespace()
            guard let keyRange = scanner.string() else { return nil }
            scanner.skipWhitespace()
            guard scanner.consume(UInt8(ascii: ":")) else { return nil }
            scanner.skipWhitespace()
            let valueStart = scanner.index
            guard scanner.skipValue() else { return nil }
            // The key without its quotes.
            let key = bytes[(keyRange.lowerBound + 1)..<(keyRange.upperBound - 1)]
            if let slot = keys.firstIndex(where: { $0.elementsEqual(key) }) { found[slot] = valueStart..<scanner.index }
            scanner.skipWhitespace()
            if scanner.consume(UInt8(ascii: ",")) { continue }
            guard scanner.consume(UInt8(ascii: "}")) else { return nil }
            return found
        }
    }

    /// The ranges of the elements of the array that is exactly `bytes[range]` (whitespace around
    /// allowed). Nil when that text is not one array.
    public static func elementRanges(ofArrayIn range: Range<Int>, of bytes: [UInt8]) -> [Range<Int>]? {
        var scanner = Scanner(bytes: bytes, index: range.lowerBound)
        scanner.skipWhitespace()
        guard scanner.consume(UInt8(ascii: "[")) else { return nil }
        var elements: [Range<Int>] = []
        scanner.skipWhitespace()
        if !scanner.consume(UInt8(ascii: "]")) {
            while true {
                scanner.skipWhitespace()
                let start = scanner.index
                guard scanner.skipValue() else { return nil }
                elements.append(start..<scanner.index)
                scanner.skipWhitespace()
                if scanner.consume(UInt8(ascii: ",")) { continue }
                guard scanner.consume(UInt8(ascii: "]")) else { return nil }
                break
            }
        }
        // Only the range's own trailing whitespace: what follows it is someone else's.
        while scanner.index < range.upperBound, isWhitespace(bytes[scanner.index]) { scanner.index += 1 }
        return scanner.index == range.upperBound ? elements : nil
    }

    /// The value at a path of object keys (`["data", "data"]`): its byte range, or nil.
    public static func range(at path: [String], of bytes: [UInt8]) -> Range<Int>? {
        var range = 0..<bytes.count
        for key in path {
            guard let fields = fields([key], inObjectAt: range.lowerBound, of: bytes), let inner = fields[key] else { return nil }
            range = inner
        }
        return range
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index: Int

        mutating func skipWhitespace() {
            while index < bytes.count, RawJSON.isWhitespace(bytes[index]) { index += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string literal, quotes included.
        mutating func string() -> Range<Int>? {
            let start = index
            guard consume(UInt8(ascii: "\"")) else { return nil }
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return start..<index
                default: index += 1
                }
            }
            return nil
        }

        mutating func skipValue() -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard string() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default: break
                    }
                    index += 1
                }
                return false
            default:
                // A number, true, false or null: up to the next delimiter.
                let start = index
                while index < bytes.count, !RawJSON.isDelimiter(bytes[index]) {
                    index += 1
                }
                return index > start
            }
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// What ends a number, `true`, `false` or `null`.
    static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isWhitespace(byte)
    }
}
