import Foundation
import HearthEvents

/// The envelope's text with its personal fields sealed (the one writer of that form), and the
/// opening of a stored event (its Kafka value or archived text): the same envelope with the
/// personal fields in the clear (or their `erased` stand-ins), which is what every reader decodes.
/// Text without a sealed value is returned as it is, after one scan.
public enum SealedEnvelope {
    /// `envelope` as JSON text, each field `P.privacy` marks personal sealed with its subject's key.
    public static func seal<P: EventPayload>(_ envelope: Envelope<P>, keys: some SealingKeySource, encoder: JSONEncoder = .hearth()) async throws -> Data {
        guard P.privacy.hasPersonalFields else { return try encoder.encode(envelope) }
        let payload = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(envelope.data))
        let sealed = try await PayloadSealing.seal(payload, eventType: P.eventType, privacy: P.privacy, keys: keys)
        return try encoder.encode(Body(metadata: envelope.metadata, data: sealed))
    }

    /// The envelope of a payload whose personal fields are sealed: the same document as
    /// `Envelope<P>`, with `data` as JSON.
    private struct Body: Encodable {
        let metadata: EventMetadata
        let data: JSONValue

        enum CodingKeys: String, CodingKey { case data }

        func encode(to encoder: any Encoder) throws {
            try metadata.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(data, forKey: .data)
        }
    }

    public static func open(_ value: [UInt8], catalogue: EventCatalogue, leavingGoneSealed: Bool = false, key: (UUID) -> OpeningKey?) throws -> [UInt8] {
        guard SealedField.occurs(in: value) else { return value }
        if let raw = RawEnvelope(value) {
            // Only the payload is rewritten: the metadata's bytes stay as they are, and the fast
            // metadata reader reads the result like any other envelope.
            let payload = try JSONDecoder().decode(JSONValue.self, from: Data(value[raw.payload]))
            let type = raw.metadata.type
            let privacy = catalogue.privacy(of: type, version: raw.metadata.version)
            let opened = try PayloadSealing.open(payload, eventType: type, privacy: privacy, leavingGoneSealed: leavingGoneSealed, key: key)
            var out = Array(value[..<raw.payload.lowerBound])
            out.append(contentsOf: try openedEncoder.encode(opened))
            out.append(contentsOf: value[raw.payload.upperBound...])
            return out
        }
        guard case .object(var envelope) = try JSONDecoder().decode(JSONValue.self, from: Data(value)),
              case .string(let type)? = envelope["type"], let payload = envelope["data"]
        else { return value }
        // No version: `privacy(of:version:)` falls back to the current type's fields.
        var version = 0
        if case .number(let number)? = envelope["version"] { version = Int(number) }
        let privacy = catalogue.privacy(of: type, version: version)
        envelope["data"] = try PayloadSealing.open(payload, eventType: type, privacy: privacy, leavingGoneSealed: leavingGoneSealed, key: key)
        return Array(try openedEncoder.encode(JSONValue.object(envelope)))
    }

    /// Sorted keys: every reader that opens the same event gets the same bytes (the live stream
    /// and the stored run events are compared byte for byte), whatever order a dictionary held.
    private static var openedEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
