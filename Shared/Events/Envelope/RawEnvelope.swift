import Foundation

/// An envelope's metadata read straight from its JSON text, and where its `data` is, without
/// Foundation's decoder: the projection pipeline reads every event's metadata (the archive reads
/// nothing else), and a full `JSONDecoder` pass over each envelope was most of its CPU time.
///
/// Only text a JSON encoder wrote is read this way (Kafka values and archived envelopes); anything
/// it cannot read answers nil, and the caller falls back to the decoder, whose errors say what
/// is wrong.
public struct RawEnvelope: Sendable {
    public let metadata: EventMetadata
    /// The byte range of the payload (`data`) in the envelope's text.
    public let payload: Range<Int>

    /// The envelope's keys, at the raw values of `Field`.
    static let keys: [[UInt8]] = Field.allCases.map { Array($0.name.utf8) }

    enum Field: Int, CaseIterable {
        case id, type, version, key, occurredAt, correlationId, causationId, source, data

        var name: String {
            switch self {
            case .id: "id"
            case .type: "type"
            case .version: "version"
            case .key: "key"
            case .occurredAt: "occurred_at"
            case .correlationId: "correlation_id"
            case .causationId: "causation_id"
            case .source: "source"
            case .data: "data"
            }
        }
    }

    public init?(_ bytes: [UInt8]) {
        guard let fields = RawJSON.fieldRanges(Self.keys, of: bytes) else { return nil }
        func field(_ name: Field) -> ArraySlice<UInt8>? {
            fields[name.rawValue].map { bytes[$0] }
        }
        guard let id = field(.id).flatMap(Self.uuid),
              let type = field(.type).flatMap(Self.string),
              let version = field(.version).flatMap(Self.integer),
              let key = field(.key).flatMap(Self.string),
              let occurredText = field(.occurredAt).flatMap(Self.string), let occurredAt = Timestamp.parse(occurredText),
              let correlationId = field(.correlationId).flatMap(Self.string),
              let source = field(.source).flatMap(Self.string),
              let payload = fields[Field.data.rawValue]
        else { return nil }
        var causationId: String?
        if let literal = field(.causationId), !Self.isNull(literal) {
            guard let text = Self.string(literal) else { return nil }
            causationId = text
        }
        metadata = EventMetadata(
            id: id, type: type, version: version, key: key, occurredAt: occurredAt, correlationId: correlationId,
            causationId: causationId, source: source)
        self.payload = payload
    }

    /// A JSON string literal's content; one with escapes goes through the decoder (rare: ids,
    /// types and keys never have any).
    static func string(_ literal: ArraySlice<UInt8>) -> String? {
        guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else { return nil }
        let inner = literal.dropFirst().dropLast()
        if !inner.contains(UInt8(ascii: "\\")) {
            // Control characters must be escaped in JSON: their presence means the text is not JSON.
            guard !inner.contains(where: { $0 < 0x20 }) else { return nil }
            return String(validating: inner, as: UTF8.self)
        }
        return try? JSONDecoder().decode(String.self, from: Data(literal))
    }

    /// A UUID string literal (`"8-4-4-4-12"` hex digits, either case), read by hand: Foundation's
    /// `UUID(uuidString:)` goes through `sscanf`, a visible share of the projection path's CPU.
    static func uuid(_ literal: ArraySlice<UInt8>) -> UUID? {
        guard literal.count == 38, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var byteIndex = 0
        var high: UInt8?
        let valid = withUnsafeMutableBytes(of: &value) { bytes -> Bool in
            for (offset, character) in literal.dropFirst().dropLast().enumerated() {
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard character == UInt8(ascii: "-") else { return false }
                    continue
                }
                let nibble: UInt8
                switch character {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
                default: return false
                }
                if let pending = high {
                    bytes[byteIndex] = pending << 4 | nibble
                    byteIndex += 1
                    high = nil
                } else {
                    high = nibble
                }
            }
            return byteIndex == 16
        }
        return valid ? UUID(uuid: value) : nil
    }

    static func integer(_ literal: ArraySlice<UInt8>) -> Int? {
        guard !literal.isEmpty, literal.count <= 18, literal.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return literal.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    static func isNull(_ literal: ArraySlice<UInt8>) -> Bool {
        literal.elementsEqual("null".utf8)
    }
}
