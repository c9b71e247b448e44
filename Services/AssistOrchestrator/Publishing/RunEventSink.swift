import HearthEvents
import HearthKafka
import HearthStore
import Metrics

/// Publishes a run's events to `assist.events` without waiting for each acknowledgement.
///
/// A run emits dozens of events (every synthesis token is one) and the stream's latency is what
/// users feel, so events are handed to librdkafka as they happen, in order (one key, one
/// partition, so order holds), and the acknowledgements are collected once at the end of the run.
struct RunEventSink: Sendable {
    let producer: KafkaProducer
    let source: String

    func enqueue<P: EventPayload>(_ payload: P, correlationId: String, causationId: String?) async throws -> KafkaPendingDelivery {
        let envelope = Envelope(payload, correlationId: correlationId, causationId: causationId, source: source)
        let delivery = try await producer.sendPipelined(try EventPublisher.message(for: envelope))
        Counter(label: "hearth_events_produced_total", dimensions: [("topic", P.topic.name), ("type", P.eventType)]).increment()
        return delivery
    }
}
