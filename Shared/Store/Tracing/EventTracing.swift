import HearthKafka
import Synchronization
import Tracing

/// One trace per request across its hops: the trace context (W3C `traceparent`/`tracestate`)
/// travels in each event's Kafka headers, so a consumer's spans join the trace of whatever
/// published the event.
///
/// Hearth's own tracer, not the process-wide `InstrumentationSystem`: libraries that trace
/// through the global one (AsyncHTTPClient would record every outgoing URL, with its device
/// tokens and webhook secrets, and send `traceparent` to model providers and webhook receivers)
/// stay untraced. Off unless the host installed an exporter (`TracingSetup`): then nothing here
/// starts a span, reads a header or adds one.
public enum EventTracing {
    private static let enabled = Atomic<Bool>(false)
    private static let installed = Mutex<(any Tracer)?>(nil)

    /// True once a tracer that exports spans is installed in this process.
    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Called once by the host at start-up with the exporting tracer.
    public static func install(_ tracer: any Tracer) {
        installed.withLock { $0 = tracer }
        enabled.store(true, ordering: .relaxed)
    }

    private static var tracer: (any Tracer)? {
        guard isEnabled else { return nil }
        return installed.withLock { $0 }
    }

    // MARK: Spans

    /// Now, for a span to begin here and be made later; nil (no clock read) when tracing is off.
    public static func spanStart() -> DefaultTracerClock.Instant? {
        isEnabled ? DefaultTracerClock.now : nil
    }

    /// A span begun now (or at `instant`), child of `context`; nil when tracing is off. The caller ends it.
    public static func startSpan(
        _ name: String, context: ServiceContext, ofKind kind: SpanKind, at instant: DefaultTracerClock.Instant? = nil
    ) -> (any Span)? {
        guard let tracer else { return nil }
        return start(tracer, name, context: context, kind: kind, at: instant ?? DefaultTracerClock.now)
    }

    private static func start<T: Tracer>(
        _ tracer: T, _ name: String, context: ServiceContext, kind: SpanKind, at instant: DefaultTracerClock.Instant
    ) -> any Span {
        tracer.startSpan(name, context: context, ofKind: kind, at: instant)
    }

    /// Runs `body` in `span` (current while it runs, so what `body` publishes carries it), records
    /// a thrown error on it, and ends it.
    public static func run<R>(
        in span: any Span, isolation: isolated (any Actor)? = #isolation, _ body: (any Span) async throws -> R
    ) async rethrows -> R {
        defer { span.end() }
        do {
            return try await ServiceContext.$current.withValue(span.context) { try await body(span) }
        } catch {
            span.recordError(error)
            throw error
        }
    }

    // MARK: Kafka

    /// The trace context headers of the current task's span (none when tracing is off or no span
    /// is current), to be added to an outgoing event.
    public static func currentContextHeaders() -> [KafkaHeader] {
        guard let tracer, let context = ServiceContext.current else { return [] }
        var headers: [KafkaHeader] = []
        tracer.inject(context, into: &headers, using: KafkaHeadersInjector())
        return headers
    }

    /// The trace context an event was published in, or nil (tracing off, or an event published
    /// outside any trace: a replayed archive, a tool).
    public static func context(of message: KafkaMessage) -> ServiceContext? {
        guard let tracer, message.headers.contains(where: { $0.key == traceParentHeader }) else { return nil }
        var context = ServiceContext.topLevel
        tracer.extract(message.headers, into: &context, using: KafkaHeadersExtractor())
        return context
    }

    /// Runs `body` in a producer span named after the topic, so the event's headers (made inside
    /// `body`) carry this span as the consumers' parent. Only inside a trace: an event published
    /// outside any (a projection's, a schedule's) is not the start of one. Without tracing, just
    /// runs `body`.
    public static func publishing<T>(
        to topic: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard isEnabled, let parent = ServiceContext.current, let span = startSpan("publish \(topic)", context: parent, ofKind: .producer) else {
            return try await body()
        }
        span.attributes["messaging.system"] = "kafka"
        span.attributes["messaging.destination.name"] = topic
        return try await run(in: span) { _ in try await body() }
    }

    /// Runs `body` (the handling of one consumed event, since `received`) in a consumer span, child
    /// of the span that published the event, or the root of a new trace when the event carries
    /// none. Without tracing, just runs `body`.
    public static func consuming<T>(
        _ message: KafkaMessage, operation: String, received: DefaultTracerClock.Instant?,
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard let span = startSpan(operation, context: context(of: message) ?? .topLevel, ofKind: .consumer, at: received) else {
            return try await body()
        }
        describe(span, message)
        return try await run(in: span) { _ in try await body() }
    }

    /// Records that `messages` were applied by `projection` between `started` and now: one
    /// consumer span per traced event, child of the span that published it, so the request's
    /// trace shows when its events reached each read model. `reads` tells the events the
    /// projection applied from those it passed over (types it does not read): only the former
    /// get a span.
    public static func recordApplied(
        _ messages: [KafkaMessage], projection: String, started: DefaultTracerClock.Instant?, reads: (KafkaMessage) -> Bool
    ) {
        guard isEnabled else { return }
        for message in messages where reads(message) {
            recordHandled(message, operation: "project \(projection)", started: started, batchSize: messages.count)
        }
    }

    /// Records that one traced event was handled between `started` and now (`operation`, say
    /// "deliver assist.events": a run's event handed to the streams waiting for it), with the
    /// `batchSize` it was handled in, if any: a consumer span, child of the span that published
    /// it. An event outside any trace records nothing.
    public static func recordHandled(_ message: KafkaMessage, operation: String, started: DefaultTracerClock.Instant?, batchSize: Int? = nil) {
        guard isEnabled, let started, let context = context(of: message),
              let span = startSpan(operation, context: context, ofKind: .consumer, at: started)
        else { return }
        describe(span, message)
        if let batchSize { span.attributes["messaging.batch.message_count"] = batchSize }
        span.end()
    }

    private static func describe(_ span: any Span, _ message: KafkaMessage) {
        span.attributes["messaging.system"] = "kafka"
        span.attributes["messaging.destination.name"] = message.topic
        span.attributes["messaging.kafka.destination.partition"] = Int(message.partition)
        span.attributes["messaging.kafka.message.offset"] = Int(message.offset)
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
