/// A JSON document kept as a tree, so upcasters can reshape an old payload before it is decoded
/// into its current Swift type.
public enum JSONValue: Codable, Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each failed attempt throws (and builds a DecodingError), so the likeliest kinds are
        // tried first: strings and objects make up most documents. Every kind rejects the
        // others, so the order does not change what a value decodes to.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else {
            // Valid JSON that is none of these is a number no Double holds (1e999): saying
            // "expected a Bool" would mislead.
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a number out of range, or a value that is not JSON")
        }
    }

    /// `value` as a `.number`'s Double, refused when the Double would be another integer: an
    /// event must not change a number on its way through an upcaster or the sealer. Checked where
    /// Hearth writes numbers, not where it reads them: a Double of 2^53 or more is written in
    /// exponent form, whose text no longer says which integer it was.
    static func exactNumber<I: BinaryInteger>(_ value: I, codingPath: [any CodingKey]) throws -> Double {
        guard let number = Double(exactly: value) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath, debugDescription: "the integer \(value) is beyond 2^53: a JSON number here is a Double, which cannot hold it exactly"))
        }
        return number
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public subscript(key: String) -> JSONValue? {
        get {
            if case .object(let fields) = self { return fields[key] }
            return nil
        }
        set {
            if case .object(var fields) = self {
                fields[key] = newValue
                self = .object(fields)
            }
        }
    }
}
