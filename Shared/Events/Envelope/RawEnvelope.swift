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

    static let keys: Set<String> = ["id", "type", "version", "key", "occurred_at", "correlation_id", "causation_id", "source", "data"]

    public init?(_ bytes: [UInt8]) {
        guard let fields = RawJSON.fields(Self.keys, of: bytes),
              let idText = fields["id"].flatMap({ Self.string(bytes[$0]) }), let id = UUID(uuidString: idText),
              let type = fields["type"].flatMap({ Self.string(bytes[$0]) }),
              let version = fields["version"].flatMap({ Self.integer(bytes[$0]) }),
              let key = fields["key"].flatMap({ Self.string(bytes[$0]) }),
              let occurredText = fields["occurred_at"].flatMap({ Self.string(bytes[$0]) }), let occurredAt = Timestamp.parse(occurredText),
              let correlationId = fields["correlation_id"].flatMap({ Self.string(bytes[$0]) }),
              let source = fields["source"].flatMap({ Self.string(bytes[$0]) }),
              let payload = fields["data"]
        else { return nil }
        var causationId: String?
        if let range = fields["causation_id"], !Self.isNull(bytes[range]) {
            guard let text = Self.string(bytes[range]) else { return nil }
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

    static func integer(_ literal: ArraySlice<UInt8>) -> Int? {
        guard !literal.isEmpty, literal.count <= 18, literal.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return literal.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    static func isNull(_ literal: ArraySlice<UInt8>) -> Bool {
        literal.elementsEqual("null".utf8)
    }
}
