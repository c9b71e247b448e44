import HearthEvents
import HearthKafka

/// The Kafka headers every event carries beside its JSON value, so tools can filter and route
/// without parsing the body (CloudEvents' binary-mode names where one exists).
public enum EventHeaders {
    public static let id = "ce_id"
    public static let type = "ce_type"
    public static let source = "ce_source"
    public static let time = "ce_time"
    public static let correlationId = "correlation_id"
    public static let version = "hearth_version"

    /// The event's own headers, then the trace context of the span publishing it (when tracing is on).
    public static func make(for metadata: EventMetadata) -> [KafkaHeader] {
        var headers = [
            KafkaHeader(key: id, string: metadata.id.uuidString.lowercased()),
            KafkaHeader(key: type, string: metadata.type),
            KafkaHeader(key: source, string: metadata.source),
            KafkaHeader(key: time, string: Timestamp.format(metadata.occurredAt)),
            KafkaHeader(key: correlationId, string: metadata.correlationId),
            KafkaHeader(key: version, string: String(metadata.version)),
        ]
        if EventTracing.isEnabled { headers += EventTracing.currentContextHeaders() }
        return headers
    }

    /// The (type, version) hint the catalogue uses to skip a first pass over the JSON.
    public static func typeHint(of message: KafkaMessage) -> (type: String, version: Int)? {
        guard let type = message.header(Self.type), let version = message.header(Self.version),
              let versionNumber = Int(String(decoding: version, as: UTF8.self))
        else { return nil }
        return (String(decoding: type, as: UTF8.self), versionNumber)
    }
}
