import Foundation
import HearthEvents
import HearthKafka
import Tracing
import Synchronization

/// One run's side of the stream: numbers its events (`seq` from 1), publishes them in order, and
/// remembers the deliveries so the run ends only once Kafka holds every event.
///
/// An actor because events come from the run and from the token-flush timer. Publishing goes
/// through a FIFO gate, so a call suspended in the producer (its local queue full) cannot be
/// overtaken: seq order is Kafka order.
actor RunEmitter {
    let runId: UUID
    private let sink: RunEventSink
    private let correlationId: String
    private let causationId: String?
    private let started: ContinuousClock.Instant
    private let tokenWindow: Duration
    /// The run's trace context, where the emitter was made: the token-flush task publishes
    /// under it rather than under whatever span (a model call's) the text arrived in.
    private let traceContext: ServiceContext?
    private var seq = 0
    private var pending: [KafkaPendingDelivery] = []
    /// Synthesis text not yet sent, and whether a flush is already on its way.
    private let streamed = Mutex(StreamedText())
    private struct StreamedText {
        var text = ""
        var flushScheduled = false
    }
    private var backgroundFailure: (any Error)?
    private var publishing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// - Parameter tokenWindow: synthesis tokens arriving within this window of the first
    ///   unsent one go out as one `token` event. A provider that hands over a whole answer at
    ///   once (the offline one) then costs one event instead of a hundred Kafka messages, while
    ///   a live model's tokens, tens of milliseconds apart, still stream one by one.
    init(
        runId: UUID, sink: RunEventSink, correlationId: String, causationId: String?, started: ContinuousClock.Instant,
        tokenWindow: Duration = .milliseconds(2)
    ) {
        self.runId = runId
        self.sink = sink
        self.correlationId = correlationId
        self.causationId = causationId
        self.started = started
        self.tokenWindow = tokenWindow
        self.traceContext = ServiceContext.current
    }

    /// Milliseconds since the request was taken up.
    nonisolated var elapsedMs: Int {
        let elapsed = ContinuousClock.now - started
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    /// A run-level event (`assist.run_started`, `assist.run_completed`), in order with the stream.
    func publish<P: EventPayload>(_ payload: P) async throws {
        try await drainText()
        try await gated { try await enqueue(payload) }
    }

    /// One stream event: `context`, a progress `token`, `tool_call`, `tool_result`, a terminal
    /// event, `done`. Synthesis text still waiting in the token window goes out first.
    func emit(_ event: RunStreamEvent, _ data: JSONValue, elapsedMs: Int? = nil) async throws {
        try await drainText()
        try await gated { try await enqueueStreamEvent(event, data, elapsedMs: elapsedMs) }
    }

    /// Synthesis text as the model streams it; sent within `tokenWindow`. Not isolated: a
    /// provider may hand over an answer word by word in a tight loop, and an actor hop per word
    /// would cost more than the words.
    nonisolated func streamText(_ text: String) {
        guard !text.isEmpty else { return }
        let scheduleFlush = streamed.withLock { buffer -> Bool in
            buffer.text += text
            guard !buffer.flushScheduled else { return false }
            buffer.flushScheduled = true
            return true
        }
        guard scheduleFlush else { return }
        let window = tokenWindow
        let context = traceContext
        Task { [weak self] in
            try? await Task.sleep(for: window)
            await ServiceContext.$current.withValue(context) { await self?.flushTextInBackground() }
        }
    }

    var emittedCount: Int { seq }


    /// Waits until Kafka acknowledged every event of the run; throws the first failure.
    func flush() async throws {
        try await drainText()
        if let failure = backgroundFailure { throw failure }
        let deliveries = pending
        pending.removeAll()
        for delivery in deliveries { _ = try await delivery.acknowledged() }
    }

    // MARK: Internals

    private func flushTextInBackground() async {
        do {
            try await drainText()
        } catch {
            backgroundFailure = backgroundFailure ?? error
        }
    }

    private func drainText() async throws {
        let text = streamed.withLock { buffer in
            defer { buffer = StreamedText() }
            return buffer.text
        }
        guard !text.isEmpty else { return }
        try await gated { try await enqueueStreamEvent(.token, .string(text), elapsedMs: nil) }
    }

    private func enqueueStreamEvent(_ event: RunStreamEvent, _ data: JSONValue, elapsedMs: Int?) async throws {
        seq += 1
        try await enqueue(AssistRunEvent(runId: runId, seq: seq, event: event.rawValue, data: data, elapsedMs: elapsedMs))
    }

    private func enqueue<P: EventPayload>(_ payload: P) async throws {
        pending.append(try await sink.enqueue(payload, correlationId: correlationId, causationId: causationId))
    }

    /// Runs `body` alone and in arrival order, even across its suspension points.
    private func gated(_ body: () async throws -> Void) async throws {
        if publishing {
            await withCheckedContinuation { waiting.append($0) }
        }
        publishing = true
        defer {
            if waiting.isEmpty {
                publishing = false
            } else {
                waiting.removeFirst().resume()
            }
        }
        try await body()
    }
}

/// The names of a run's stream events, as clients see them.
enum RunStreamEvent: String, Sendable {
    case context
    case token
    case toolCall = "tool_call"
    case toolResult = "tool_result"
    case final
    case refusal
    case error
    case done
}
