import HearthEvents
import HearthKafka
import HearthPrivacy
import HearthStore
import Metrics

/// Publishes a run's events to `assist.events` without waiting for each acknowledgement.
///
/// A run emits a dozen events or more (synthesis text streams as it comes) and the stream's
/// latency is what users feel, so events are handed to librdkafka as they happen, in order (one key, one
/// partition, so order holds), and the acknowledgements are collected once at the end of the run.
struct RunEventSink: Sendable {
    let producer: KafkaProducer
    let source: String
    /// The publisher whose keys seal the runs' personal fields (its key per run), and which
    /// writes every event but the stream's.
    let publisher: EventPublisher

    func enqueue<P: EventPayload>(_ payload: P, correlationId: String, causationId: String?) async throws -> KafkaPendingDelivery {
        try await EventTracing.publishing(to: P.topic.name) {
            try await send(payload, correlationId: correlationId, causationId: causationId)
        }
    }

    private func send<P: EventPayload>(_ payload: P, correlationId: String, causationId: String?) async throws -> KafkaPendingDelivery {
        let envelope = Envelope(payload, correlationId: correlationId, causationId: causationId, source: source)
        let message: KafkaOutgoingMessage
        if let streamEvent = envelope as? Envelope<AssistRunEvent> {
            // Stream events carry the plan: their envelope is written by hand (the same
            // document, several times faster than JSONEncoder). Other events take the usual way.
            var sealedData: String?
            if let keys = publisher.keys {
                let key = try await keys.sealingKey(for: KeySubject.run(streamEvent.data.runId))
                sealedData = try SealedField.seal(streamEvent.data.data, with: key, eventType: AssistRunEvent.eventType, path: "data")
            }
            message = KafkaOutgoingMessage(
                topic: P.topic.name, key: envelope.metadata.key, value: try streamEvent.jsonBytes(sealedData: sealedData),
                headers: EventHeaders.make(for: envelope.metadata))
        } else {
            message = try await publisher.message(for: envelope)
        }
        let delivery = try await producer.sendPipelined(message)
        Counter(label: "hearth_events_produced_total", dimensions: [("topic", P.topic.name), ("type", P.eventType)]).increment()
        return delivery
    }
}
