import CRdKafka
import Logging
import ServiceLifecycle
import Synchronization

/// An idempotent (acks=all) producer whose sends return once the broker has acknowledged.
///
/// Delivery reports are served on a dedicated thread from `init` until `close`, so the producer
/// works without `run()` (CLIs, tests). As a `Service`, it flushes and closes on graceful
/// shutdown: list it before the services that produce through it, so that it stops after them.
public final class KafkaProducer: Service, Sendable {
    private let handle: RdKafkaHandle
    private let logger: Logger
    private let callbacks: ClientCallbacks
    private let state = Mutex(Lifecycle.open)
    private let stopPolling = StopFlag()
    private let closed = OneShotEvent<Void>()
    /// How long closing (deinit included) waits for outstanding messages.
    private let closeFlushTimeoutMs: Int32 = 30_000

    private enum Lifecycle {
        case open
        case closing
    }

    public init(configuration: KafkaProducerConfiguration, logger: Logger) throws(KafkaError) {
        self.logger = logger
        let conf = try RdKafkaConfig.make(configuration.properties)
        let callbacks = ClientCallbacks(logger: logger)
        self.callbacks = callbacks
        let retainedCallbacks = callbacks.install(on: conf)
        rd_kafka_conf_set_dr_msg_cb(conf) { _, message, _ in
            guard let message, let opaque = message.pointee._private else { return }
            let promise = Unmanaged<DeliveryPromise>.fromOpaque(opaque).takeRetainedValue()
            let m = message.pointee
            if m.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                promise.complete(.failure(KafkaError(m.err)))
            } else {
                let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
                promise.complete(.success(KafkaDeliveryReport(topic: topic, partition: m.partition, offset: m.offset)))
            }
        }
        let rk: OpaquePointer
        do {
            rk = try RdKafkaConfig.newHandle(RD_KAFKA_PRODUCER, conf: conf)
        } catch {
            retainedCallbacks.release()
            throw error
        }
        handle = RdKafkaHandle(rk)
        startPollThread(retainedCallbacks: retainedCallbacks, clientId: configuration.clientId)
    }

    deinit {
        // Nobody can be awaiting a send (it would hold `self`); the poll thread still flushes
        // what fire-and-forget callers left behind, then destroys the handle.
        stopPolling.set()
    }

    private func startPollThread(retainedCallbacks: Unmanaged<ClientCallbacks>, clientId: String) {
        // Captures only what the loop needs, never `self`, so that deinit can stop it.
        let handle = handle
        let stop = stopPolling
        let closed = closed
        let logger = logger
        let flushTimeoutMs = closeFlushTimeoutMs
        DedicatedThread.start(name: "kafka-producer-\(clientId)") {
            let rk = handle.ownerPointer
            while !stop.isSet {
                rd_kafka_poll(rk, 100)
            }
            let err = rd_kafka_flush(rk, flushTimeoutMs)
            if err != RD_KAFKA_RESP_ERR_NO_ERROR {
                logger.error("producer closing with undelivered messages", metadata: [
                    "outstanding": "\(rd_kafka_outq_len(rk))", "error": "\(KafkaError(err))",
                ])
                // Purged messages get failed delivery reports, so no sender waits forever and
                // every promise is released.
                rd_kafka_purge(rk, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
                rd_kafka_flush(rk, 1_000)
            }
            handle.destroy()
            retainedCallbacks.release()
            closed.signal()
        }
    }

    /// The fatal error librdkafka reported (an idempotent producer that lost its state): every
    /// send fails from then on, and the process must be restarted. `/readyz` reports it.
    public var fatalError: KafkaError? { callbacks.fatalError.withLock { $0 } }

    /// Raises a fatal error as librdkafka would (`rd_kafka_test_fatal_error`), for tests of what
    /// the service does then.
    func raiseFatalErrorForTesting(_ reason: String) {
        _ = handle.withLease { rd_kafka_test_fatal_error($0, RD_KAFKA_RESP_ERR__FATAL, reason) }
    }

    /// Sends one message and returns once the broker acknowledged it.
    public func send(_ message: KafkaOutgoingMessage) async throws(KafkaError) -> KafkaDeliveryReport {
        let promise = try await enqueue(message)
        do {
            return try await promise.value()
        } catch let error as KafkaError {
            throw error
        } catch {
            throw KafkaError(code: KafkaErrorCode.state, message: "\(error)")
        }
    }

    /// Enqueues all messages in order before awaiting any acknowledgement, so that messages with
    /// the same key keep their order; results are in input order. Throws the first failure.
    public func send(_ messages: [KafkaOutgoingMessage]) async throws -> [KafkaDeliveryReport] {
        var promises: [DeliveryPromise] = []
        promises.reserveCapacity(messages.count)
        for message in messages {
            promises.append(try await enqueue(message))
        }
        var reports: [KafkaDeliveryReport] = []
        reports.reserveCapacity(messages.count)
        for promise in promises {
            reports.append(try await promise.value())
        }
        return reports
    }

    /// Hands one message to librdkafka without waiting for the broker, for callers that stream
    /// many messages of one key and want them pipelined: each call keeps its call order on
    /// the partition, and the acknowledgements are awaited later (in any order) through the
    /// returned handles. Waits only while librdkafka's local queue is full.
    public func sendPipelined(_ message: KafkaOutgoingMessage) async throws(KafkaError) -> KafkaPendingDelivery {
        KafkaPendingDelivery(promise: try await enqueue(message))
    }

    /// Messages enqueued and not yet acknowledged (also counts in-flight requests); for metrics
    /// and for tests that need to know a send has been enqueued.
    public var queuedMessages: Int {
        handle.withLease { Int(rd_kafka_outq_len($0)) } ?? 0
    }

    /// Waits until every message enqueued so far is acknowledged (or failed).
    public func flush(timeout: Duration) async throws {
        let handle = handle
        let ms = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let err = await DedicatedThread.run(name: "kafka-producer-flush") { () -> rd_kafka_resp_err_t in
            handle.withLease { rd_kafka_flush($0, ms) } ?? RD_KAFKA_RESP_ERR_NO_ERROR
        }
        if err != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError(err) }
    }

    /// Waits for graceful shutdown (or cancellation), then flushes and closes.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    /// Flushes outstanding messages, then destroys the handle. Idempotent; later sends throw.
    public func close() async {
        state.withLock { $0 = .closing }
        stopPolling.set()
        await closed.wait()
    }

    /// Enqueues without waiting for the broker. Waits (without blocking a thread) while
    /// librdkafka's local queue is full; everything else is reported at once.
    private func enqueue(_ message: KafkaOutgoingMessage) async throws(KafkaError) -> DeliveryPromise {
        while true {
            let promise = DeliveryPromise()
            let opaque = Unmanaged.passRetained(promise)
            // Produced under the state lock so that `close` cannot flush between the check and
            // the enqueue and then miss this message.
            let error: KafkaError? = state.withLock { lifecycle -> KafkaError? in
                guard case .open = lifecycle else {
                    return KafkaError(code: KafkaErrorCode.destroyed, message: "producer is closed")
                }
                return handle.withLease { rk in Self.produce(rk, message, opaque: opaque.toOpaque()) }
                    ?? KafkaError(code: KafkaErrorCode.destroyed, message: "producer is closed")
            }
            guard let error else { return promise }
            opaque.release()
            guard error.code == KafkaErrorCode.queueFull else { throw error }
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                throw KafkaError(code: KafkaErrorCode.state, message: "send cancelled while the local queue was full")
            }
        }
    }

    private static func produce(_ rk: OpaquePointer, _ message: KafkaOutgoingMessage, opaque: UnsafeMutableRawPointer) -> KafkaError? {
        let headers: OpaquePointer? = message.headers.isEmpty ? nil : rd_kafka_headers_new(message.headers.count)
        if let headers {
            for header in message.headers {
                header.value.withUnsafeBytes { bytes in
                    _ = rd_kafka_header_add(headers, header.key, -1, bytes.baseAddress, bytes.count)
                }
            }
        }
        let error: OpaquePointer? = message.topic.withCString { topic in
            // An empty value is an empty value, not a tombstone (which a NULL pointer would make).
            withNonNullBytes(message.value) { value in
                withOptionalBytes(message.key) { key in
                    var values = [rd_kafka_vu_t](repeating: rd_kafka_vu_t(), count: 7)
                    values[0].vtype = RD_KAFKA_VTYPE_TOPIC
                    values[0].u.cstr = topic
                    values[1].vtype = RD_KAFKA_VTYPE_PARTITION
                    values[1].u.i32 = message.partition ?? RD_KAFKA_PARTITION_UA
                    values[2].vtype = RD_KAFKA_VTYPE_VALUE
                    values[2].u.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress)
                    values[2].u.mem.size = value.count
                    values[3].vtype = RD_KAFKA_VTYPE_MSGFLAGS
                    values[3].u.i = RD_KAFKA_MSG_F_COPY
                    values[4].vtype = RD_KAFKA_VTYPE_OPAQUE
                    values[4].u.ptr = opaque
                    var count = 5
                    if let key {
                        values[count].vtype = RD_KAFKA_VTYPE_KEY
                        values[count].u.mem.ptr = UnsafeMutableRawPointer(mutating: key.baseAddress)
                        values[count].u.mem.size = key.count
                        count += 1
                    }
                    if let headers {
                        values[count].vtype = RD_KAFKA_VTYPE_HEADERS
                        values[count].u.headers = headers
                        count += 1
                    }
                    return rd_kafka_produceva(rk, values, count)
                }
            }
        }
        guard let error else { return nil }
        // On failure the headers stay ours.
        if let headers { rd_kafka_headers_destroy(headers) }
        return KafkaError(consuming: error)
    }

    /// An empty key is still a key (and hashed as such); only nil means "no key".
    private static func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let bytes else { return body(nil) }
        return withNonNullBytes(bytes) { body($0) }
    }

    /// The bytes with a base address even when there are none: a zero-length array may have no
    /// base address, and librdkafka reads a NULL key or value as a missing one.
    static func withNonNullBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { buffer in
            if buffer.baseAddress == nil {
                var empty: UInt8 = 0
                return withUnsafeBytes(of: &empty) { body(UnsafeRawBufferPointer(start: $0.baseAddress, count: 0)) }
            }
            return body(buffer)
        }
    }
}

/// A message `KafkaProducer.sendPipelined` handed to librdkafka, whose acknowledgement is still to come.
public struct KafkaPendingDelivery: Sendable {
    let promise: DeliveryPromise

    /// Waits for the broker's acknowledgement (or the delivery failure). Await it at most once.
    public func acknowledged() async throws(KafkaError) -> KafkaDeliveryReport {
        do {
            return try await promise.value()
        } catch let error as KafkaError {
            throw error
        } catch {
            throw KafkaError(code: KafkaErrorCode.state, message: "\(error)")
        }
    }
}
