import HearthKafka
import Synchronization
import Tracing

/// One trace per request across every hop: the trace context (W3C `traceparent`/`tracestate`)
/// travels in each event's Kafka headers, so a consumer's spans join the trace of whatever
/// published the event.
///
/// Tracing is off unless the host installed an exporter (`TracingSetup`): then nothing here
/// starts a span, reads a header or adds one, so an untraced deployment pays nothing per event.
public enum EventTracing {
    private static let enabled = Atomic<Bool>(false)

    /// True once a tracer that exports spans is installed in this process.
    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Called once by the host after bootstrapping the tracer.
    public static func enable() { enabled.store(true, ordering: .relaxed) }

    /// The trace context headers of the current task's span (none when tracing is off or no span
    /// is current), to be added to an outgoing event.
    public static func currentContextHeaders() -> [KafkaHeader] {
        guard isEnabled, let context = ServiceContext.current else { return [] }
        var headers: [KafkaHeader] = []
        InstrumentationSystem.instrument.inject(context, into: &headers, using: KafkaHeadersInjector())
        return headers
    }

    /// The trace context an event was published in, or nil (tracing off, or an event published
    /// outside any trace: a replayed archive, a tool).
    public static func context(of message: KafkaMessage) -> ServiceContext? {
        guard isEnabled, message.headers.contains(where: { $0.key == traceParentHeader }) else { return nil }
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(message.headers, into: &context, using: KafkaHeadersExtractor())
        return context
    }

    /// Runs `body` in a producer span named after the topic, so the event's headers (made inside
    /// `body`) carry this span as the consumers' parent. Without tracing, just runs `body`.
    public static func publishing<T>(
        to topic: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard isEnabled else { return try await body() }
        return try await withSpan("publish \(topic)", ofKind: .producer) { span in
            span.attributes["messaging.system"] = "kafka"
            span.attributes["messaging.destination.name"] = topic
            return try await body()
        }
    }

    /// Runs `body` (the handling of one consumed event, since `received`) in a consumer span, child
    /// of the span that published the event, or the root of a new trace when the event carries
    /// none. Without tracing, just runs `body`.
    public static func consuming<T>(
        _ message: KafkaMessage, operation: String, received: DefaultTracerClock.Instant,
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard isEnabled else { return try await body() }
        return try await withSpan(operation, at: received, context: context(of: message) ?? .topLevel, ofKind: .consumer) { span in
            span.attributes["messaging.system"] = "kafka"
            span.attributes["messaging.destination.name"] = message.topic
            span.attributes["messaging.kafka.destination.partition"] = Int(message.partition)
            span.attributes["messaging.kafka.message.offset"] = Int(message.offset)
            return try await body()
        }
    }

    /// Records that `messages` were applied by `projection` between `started` and now: one
    /// consumer span per traced event, child of the span that published it, so the request's
    /// trace shows when its events reached each read model.
    public static func recordApplied(_ messages: [KafkaMessage], projection: String, started: DefaultTracerClock.Instant) {
        guard isEnabled else { return }
        for message in messages {
            guard let context = context(of: message) else { continue }
            let span = startSpan("project \(projection)", at: started, context: context, ofKind: .consumer)
            span.attributes["messaging.system"] = "kafka"
            span.attributes["messaging.destination.name"] = message.topic
            span.attributes["messaging.kafka.destination.partition"] = Int(message.partition)
            span.attributes["messaging.kafka.message.offset"] = Int(message.offset)
            span.attributes["messaging.batch.message_count"] = messages.count
            span.end()
        }
    }

    static let traceParentHeader = "traceparent"
}

/// Writes the propagator's fields (W3C `traceparent`, `tracestate`) as Kafka headers.
struct KafkaHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [KafkaHeader]) {
        carrier.append(KafkaHeader(key: key, string: value))
    }
}

/// Reads the propagator's fields back from a consumed message's headers.
struct KafkaHeadersExtractor: Extractor {
    func extract(key: String, from carrier: [KafkaHeader]) -> String? {
        carrier.first { $0.key == key }?.stringValue
    }
}
