import Foundation

/// The metadata every event carries, whatever its payload.
public struct EventMetadata: Codable, Sendable, Equatable {
    public var id: UUID
    public var type: String
    public var version: Int
    public var key: String
    public var occurredAt: Date
    public var correlationId: String
    public var causationId: String?
    public var source: String

    enum CodingKeys: String, CodingKey {
        case id, type, version, key, source
        case occurredAt = "occurred_at"
        case correlationId = "correlation_id"
        case causationId = "causation_id"
    }

    public init(
        id: UUID = UUID(), type: String, version: Int, key: String, occurredAt: Date = Date(),
        correlationId: String, causationId: String?, source: String
    ) {
        self.id = id
        self.type = type
        self.version = version
        self.key = key
        self.occurredAt = Timestamp.rounded(occurredAt)
        self.correlationId = correlationId
        self.causationId = causationId
        self.source = source
    }
}

/// The one envelope of every event on every topic: metadata plus the typed payload under `data`.
public struct Envelope<Payload: EventPayload>: Codable, Sendable, Equatable {
    public var metadata: EventMetadata
    public var data: Payload

    public init(_ data: Payload, correlationId: String, causationId: String? = nil, source: String, id: UUID = UUID(), occurredAt: Date = Date()) {
        self.metadata = EventMetadata(
            id: id, type: Payload.eventType, version: Payload.version, key: data.aggregateKey,
            occurredAt: occurredAt, correlationId: correlationId, causationId: causationId, source: source)
        self.data = data
    }

    enum CodingKeys: String, CodingKey { case data }

    public init(from decoder: any Decoder) throws {
        metadata = try EventMetadata(from: decoder)
        data = try decoder.container(keyedBy: CodingKeys.self).decode(Payload.self, forKey: .data)
    }

    public func encode(to encoder: any Encoder) throws {
        try metadata.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data, forKey: .data)
    }
}

/// An envelope whose payload has been decoded (and upcast) into its current Swift type.
public struct DecodedEvent: Sendable {
    public var metadata: EventMetadata
    public var payload: any EventPayload

    public init(metadata: EventMetadata, payload: any EventPayload) {
        self.metadata = metadata
        self.payload = payload
    }
}
