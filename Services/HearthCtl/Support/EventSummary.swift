import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import HearthStore

/// What `tail`, `trace` and `dlq list` print for one event: its metadata and a one-line summary
/// of the payload, whatever its type (decoded as plain JSON, so unknown types print too).
struct EventSummary: Encodable {
    var topic: String
    var partition: Int32
    var offset: Int64
    var id: String
    var type: String
    var version: Int
    var key: String
    var occurredAt: String
    var correlationId: String
    var causationId: String?
    var source: String
    var summary: String
    /// The projections that have applied this event (filled in by `trace`, nil elsewhere).
    var projectedBy: [String]?

    enum CodingKeys: String, CodingKey {
        case topic, partition, offset, id, type, version, key, source, summary
        case projectedBy = "projected_by"
        case occurredAt = "occurred_at"
        case correlationId = "correlation_id"
        case causationId = "causation_id"
    }

    private struct Body: Decodable {
        let data: JSONValue?
    }

    /// Nil when the bytes are not a Hearth envelope.
    init?(topic: String, partition: Int32, offset: Int64, value: [UInt8]) {
        let decoder = JSONDecoder.hearth()
        guard let metadata = try? decoder.decode(EventMetadata.self, from: Data(value)) else { return nil }
        let data = (try? decoder.decode(Body.self, from: Data(value)))?.data
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.id = metadata.id.uuidString.lowercased()
        self.type = metadata.type
        self.version = metadata.version
        self.key = metadata.key
        self.occurredAt = Timestamp.format(metadata.occurredAt)
        self.correlationId = metadata.correlationId
        self.causationId = metadata.causationId
        self.source = metadata.source
        self.summary = data.map(Self.oneLine) ?? ""
    }

    var occurredDate: Date? { Timestamp.parse(occurredAt) }

    var line: String {
        "\(occurredAt)  \(type) v\(version)  key=\(key)  corr=\(correlationId)  \(topic)/\(partition)@\(offset)  \(summary)"
    }

    /// `field=value` pairs, long values and nested objects shortened, at most ~160 characters.
    static func oneLine(_ value: JSONValue) -> String {
        func render(_ value: JSONValue, depth: Int) -> String {
            switch value {
            case .null: return "null"
            case .bool(let flag): return String(flag)
            case .number(let number): return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            case .string(let text) where text.hasPrefix(SealedField.prefix): return "«sealed»"
            case .string(let text): return text.count > 40 ? "\"\(text.prefix(37))...\"" : "\"\(text)\""
            case .array(let items):
                if depth > 0 { return "[\(items.count)]" }
                return "[" + items.prefix(4).map { render($0, depth: depth + 1) }.joined(separator: ",") + (items.count > 4 ? ",...]" : "]")
            case .object(let fields):
                if depth > 0 { return "{...}" }
                return fields.keys.sorted().map { "\($0)=\(render(fields[$0]!, depth: depth + 1))" }.joined(separator: " ")
            }
        }
        let text = render(value, depth: 0)
        return text.count > 160 ? String(text.prefix(157)) + "..." : text
    }
}

enum JSONOutput {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func print<T: Encodable>(_ value: T) throws {
        Swift.print(try encode(value))
    }
}

/// A coding key of any name, for JSON objects whose field names are not one fixed enum: the
/// dead-letter headers `dlq list --json` prints under their own names, the fields of a
/// `publish` line (all of them, so that an unknown one can be refused).
struct AnyCodingKey: CodingKey {
    let stringValue: String
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.init(stringValue) }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}
