import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import Metrics

/// Publishes typed events: wraps them in the envelope, encodes them (sealing their personal
/// fields with their subjects' keys), sets key and headers, and returns only once Kafka has
/// acknowledged the write.
public struct EventPublisher: Sendable {
    public let producer: KafkaProducer
    public let source: String
    /// Seals the fields `P.privacy` marks personal. Every service's publisher has them; nil (a
    /// test's publisher of fixtures, said explicitly) sends personal fields in the clear, which
    /// readers accept.
    public let keys: (any SealingKeySource)?

    public init(producer: KafkaProducer, source: String, keys: (any SealingKeySource)?) {
        self.producer = producer
        self.source = source
        self.keys = keys
    }

    public func envelope<P: EventPayload>(_ payload: P, correlationId: String, causationId: String? = nil) -> Envelope<P> {
        Envelope(payload, correlationId: correlationId, causationId: causationId, source: source, id: EventIdentity.next(eventType: P.eventType))
    }

    @discardableResult
    public func publish<P: EventPayload>(_ payload: P, correlationId: String, causationId: String? = nil) async throws -> EventPosition {
        try await publish(envelope(payload, correlationId: correlationId, causationId: causationId))
    }

    @discardableResult
    public func publish<P: EventPayload>(_ envelope: Envelope<P>) async throws -> EventPosition {
        let report = try await EventTracing.publishing(to: P.topic.name) {
            try await producer.send(try await message(for: envelope))
        }
        Self.countProduced(topic: P.topic.name, type: P.eventType, count: 1)
        return EventPosition(topic: report.topic, partition: report.partition, offset: report.offset)
    }

    /// Publishes many events of one type; they are enqueued in order, so events of one key keep
    /// their order on the partition.
    public func publish<P: EventPayload>(batch envelopes: [Envelope<P>]) async throws -> [EventPosition] {
        let reports = try await EventTracing.publishing(to: P.topic.name) {
            var messages: [KafkaOutgoingMessage] = []
            messages.reserveCapacity(envelopes.count)
            for envelope in envelopes { messages.append(try await message(for: envelope)) }
            return try await producer.send(messages)
        }
        Self.countProduced(topic: P.topic.name, type: P.eventType, count: envelopes.count)
        return reports.map { EventPosition(topic: $0.topic, partition: $0.partition, offset: $0.offset) }
    }

    /// The Kafka message of `envelope`, its personal fields sealed (when this publisher has keys).
    public func message<P: EventPayload>(for envelope: Envelope<P>) async throws -> KafkaOutgoingMessage {
        guard let keys, P.privacy.hasPersonalFields else { return try Self.plaintextMessage(for: envelope) }
        let value = try await SealedEnvelope.seal(envelope, keys: keys, encoder: Self.sharedEncoder)
        return KafkaOutgoingMessage(
            topic: P.topic.name, key: Array(envelope.metadata.key.utf8), value: Array(value), headers: EventHeaders.make(for: envelope.metadata))
    }

    /// The message with every field as it is: for payloads with nothing personal, and for tests
    /// that write fixtures (readers accept personal fields in the clear, as written before sealing).
    public static func plaintextMessage<P: EventPayload>(for envelope: Envelope<P>) throws -> KafkaOutgoingMessage {
        let value = try EventCatalogue.hearth.encode(envelope, encoder: sharedEncoder)
        return KafkaOutgoingMessage(
            topic: P.topic.name,
            key: Array(envelope.metadata.key.utf8),
            value: Array(value),
            headers: EventHeaders.make(for: envelope.metadata))
    }

    private static let sharedEncoder = JSONEncoder.hearth()

    private static func countProduced(topic: String, type: String, count: Int) {
        Counter(label: "hearth_events_produced_total", dimensions: [("topic", topic), ("type", type)]).increment(by: count)
    }
}

