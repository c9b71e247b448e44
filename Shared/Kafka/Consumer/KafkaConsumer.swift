import CRdKafka
import Logging
import ServiceLifecycle
import Synchronization

/// A consumer-group member, read as an `AsyncSequence` of messages.
///
/// `run()` polls librdkafka on a dedicated thread until graceful shutdown or cancellation, then
/// leaves the group and ends the sequence. Messages are buffered up to `maxBufferedMessages` and
/// `maxBufferedBytes`; when the buffer is full, fetching pauses while polling goes on, so a slow
/// reader neither holds up a rebalance nor is evicted from the group.
public final class KafkaConsumer: Service, AsyncSequence, Sendable {
    public typealias Element = KafkaMessage
    public typealias AsyncIterator = KafkaMessageIterator

    private let configuration: KafkaConsumerConfiguration
    private let logger: Logger
    private let handle: RdKafkaHandle
    private let callbacks: Unmanaged<ClientCallbacks>
    private let coordinator: ConsumerGroupCoordinator
    private let buffer: BoundedMessageBuffer
    private let stop = StopFlag()
    private let finished = OneShotEvent<Result<Void, any Error>>()
    private let started = Atomic<Bool>(false)

    /// - Parameters:
    ///   - onAssign: called with the newly assigned partitions before any of their messages is
    ///     delivered; returns where to start each (missing = committed offset, else
    ///     `autoOffsetReset`). If it throws, the consumer stops and `run()` throws that error.
    ///   - onRevoke: called with revoked partitions; their buffered messages are already dropped.
    public init(
        configuration: KafkaConsumerConfiguration,
        logger: Logger,
        onAssign: @escaping @Sendable ([KafkaTopicPartition]) async throws -> [KafkaTopicPartition: Int64] = { _ in [:] },
        onRevoke: @escaping @Sendable ([KafkaTopicPartition]) async -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        self.logger = logger
        let buffer = BoundedMessageBuffer(capacity: configuration.maxBufferedMessages, byteCapacity: configuration.maxBufferedBytes)
        self.buffer = buffer
        let coordinator = ConsumerGroupCoordinator(logger: logger, buffer: buffer, stop: stop, onAssign: onAssign, onRevoke: onRevoke)
        self.coordinator = coordinator

        let conf = try RdKafkaConfig.make(configuration.properties)
        let callbacks = ClientCallbacks(logger: logger, group: coordinator).install(on: conf)
        rd_kafka_conf_set_rebalance_cb(conf) { rk, err, partitions, opaque in
            guard let rk, let group = ClientCallbacks.from(opaque)?.group else { return }
            group.rebalance(rk, err, partitions)
        }
        rd_kafka_conf_set_offset_commit_cb(conf) { _, err, offsets, opaque in
            // Commits only feed lag dashboards, so a failure is worth a log line, not more.
            guard err != RD_KAFKA_RESP_ERR_NO_ERROR, err != RD_KAFKA_RESP_ERR__NO_OFFSET,
                  let callbacks = ClientCallbacks.from(opaque) else { return }
            callbacks.logger.warning("offset commit failed", metadata: [
                "error": "\(KafkaError(err))", "partitions": "\(TopicPartitionList.partitions(offsets))",
            ])
        }
        do {
            handle = RdKafkaHandle(try RdKafkaConfig.newHandle(RD_KAFKA_CONSUMER, conf: conf))
        } catch {
            callbacks.release()
            throw error
        }
        self.callbacks = callbacks
        // Rebalance and commit callbacks are then served by rd_kafka_consumer_poll.
        _ = rd_kafka_poll_set_consumer(handle.ownerPointer)
    }

    deinit {
        guard !started.load(ordering: .acquiring) else { return }
        // Never ran, so never joined a group: destroying is quick, but still blocking, and
        // deinit may run on the cooperative pool.
        let handle = handle
        let callbacks = callbacks
        DedicatedThread.start(name: "kafka-consumer-destroy") {
            handle.destroy(flags: Int32(RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE))
            callbacks.release()
        }
    }

    public var assignment: Set<KafkaTopicPartition> { coordinator.assignment }

    /// True once the group has assigned this member partitions at least once.
    public var isAssigned: Bool { coordinator.everAssigned }

    /// How many assignments this consumer has had: inside `onAssign`, the generation the new
    /// assignment's messages carry (`KafkaMessage.assignmentGeneration`).
    public var assignmentGeneration: UInt64 { coordinator.generation }

    public func makeAsyncIterator() -> KafkaMessageIterator {
        KafkaMessageIterator(buffer: buffer, lifetime: nil)
    }

    /// Subscribes, then polls until graceful shutdown or cancellation; leaves the group, ends the
    /// sequence, and rethrows the error that stopped the consumer, if any. Runs once.
    public func run() async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw KafkaError(code: KafkaErrorCode.state, message: "KafkaConsumer.run() called twice")
        }
        startPollThread()
        let stop = stop
        let finished = finished
        let result = await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await finished.wait()
            } onGracefulShutdown: {
                stop.set()
            }
        } onCancel: {
            stop.set()
        }
        try result.get()
    }

    /// Records these next-to-read offsets for the group; librdkafka commits what was recorded
    /// every `KafkaConsumerConfiguration.commitIntervalMs` and when the partitions are revoked
    /// or the consumer closes. For group-lag visibility only: Hearth's projections keep their
    /// authoritative offsets in Postgres, so a commit per applied batch (one more request to the
    /// broker each time, for every projection) would buy nothing.
    public func storeOffsets(_ nextOffsets: [KafkaTopicPartition: Int64]) {
        guard !nextOffsets.isEmpty else { return }
        let logger = logger
        _ = handle.withLease { rk in
            let list = TopicPartitionList.make(offsets: nextOffsets)
            defer { rd_kafka_topic_partition_list_destroy(list) }
            // Fails only for partitions no longer assigned here, whose new owner records its own.
            let err = rd_kafka_offsets_store(rk, list)
            if err != RD_KAFKA_RESP_ERR_NO_ERROR {
                logger.debug("offsets not recorded", metadata: ["error": "\(KafkaError(err))"])
            }
        }
    }

    /// High watermark (next offset to be written) of each assigned partition: librdkafka's
    /// cached value from fetch responses, or a broker query where nothing is cached yet.
    public func highWatermarks() async -> [KafkaTopicPartition: Int64] {
        let assigned = assignment
        guard !assigned.isEmpty else { return [:] }
        var result: [KafkaTopicPartition: Int64] = [:]
        var missing: [KafkaTopicPartition] = []
        _ = handle.withLease { rk in
            for tp in assigned {
                var low: Int64 = -1
                var high: Int64 = -1
                if rd_kafka_get_watermark_offsets(rk, tp.topic, tp.partition, &low, &high) == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 {
                    result[tp] = high
                } else {
                    missing.append(tp)
                }
            }
        }
        guard !missing.isEmpty else { return result }
        let handle = handle
        let unknown = missing
        let queried = await DedicatedThread.run(name: "kafka-consumer-watermarks") { () -> [KafkaTopicPartition: Int64] in
            var queried: [KafkaTopicPartition: Int64] = [:]
            _ = handle.withLease { rk in
                for tp in unknown {
                    var low: Int64 = -1
                    var high: Int64 = -1
                    if rd_kafka_query_watermark_offsets(rk, tp.topic, tp.partition, &low, &high, 2_000) == RD_KAFKA_RESP_ERR_NO_ERROR {
                        queried[tp] = high
                    }
                }
            }
            return queried
        }
        return result.merging(queried) { cached, _ in cached }
    }

    private func startPollThread() {
        // Captures only the parts, never `self`: the loop owns the handle from here on.
        let handle = handle
        let callbacks = callbacks
        let coordinator = coordinator
        let buffer = buffer
        let stop = stop
        let finished = finished
        let logger = logger
        let topics = configuration.topics
        DedicatedThread.start(name: "kafka-consumer-\(configuration.clientId)") {
            let rk = handle.ownerPointer
            let subscription = TopicPartitionList.make(topics.map { KafkaTopicPartition(topic: $0, partition: RD_KAFKA_PARTITION_UA) })
            let err = rd_kafka_subscribe(rk, subscription)
            rd_kafka_topic_partition_list_destroy(subscription)
            if err != RD_KAFKA_RESP_ERR_NO_ERROR { coordinator.fail(KafkaError(err)) }

            // Back-pressure without blocking the poll thread: fetching of the assignment pauses
            // while the buffer is full, and polling goes on, so rebalances and the group's
            // `max.poll.interval.ms` are served however slowly the application reads.
            // librdkafka keeps a partition's pause across a revocation and a later assignment,
            // so every partition ever paused is resumed, assigned now or not.
            var paused: Set<KafkaTopicPartition> = []
            var pausedIn: UInt64?  // the assignment generation last paused
            while !stop.isSet, coordinator.failure == nil {
                if buffer.isFull {
                    if pausedIn != coordinator.generation {  // a new assignment is not paused yet
                        let assignment = coordinator.assignment
                        KafkaConsumer.setPaused(true, assignment, rk: rk, logger: logger)
                        paused.formUnion(assignment)
                        pausedIn = coordinator.generation
                    }
                } else if pausedIn != nil, buffer.hasRoom {
                    KafkaConsumer.setPaused(false, paused.union(coordinator.assignment), rk: rk, logger: logger)
                    paused = []
                    pausedIn = nil
                }
                guard let message = rd_kafka_consumer_poll(rk, 100) else { continue }
                defer { rd_kafka_message_destroy(message) }
                let code = message.pointee.err
                if code != RD_KAFKA_RESP_ERR_NO_ERROR {
                    guard code != RD_KAFKA_RESP_ERR__PARTITION_EOF else { continue }
                    let error = KafkaError(code, message: KafkaConsumer.errorText(message))
                    if code == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET {
                        // Only with `auto.offset.reset=error`: the offset to start from is not in
                        // the log (the topic was recreated, or its start was deleted). Starting
                        // anywhere else would skip events or take old ones for applied ones.
                        let topic = message.pointee.rkt.flatMap { rd_kafka_topic_name($0) }.map { String(cString: $0) } ?? "?"
                        coordinator.fail(KafkaError(code, message: """
                            \(topic)/\(message.pointee.partition): the offset to start from is outside the log \
                            (\(KafkaConsumer.errorText(message) ?? "offset out of range")); the topic was recreated or truncated, \
                            so the consumer stops rather than skip events: rebuild the read model with `hearthctl replay`
                            """))
                    } else if error.isFatal {
                        coordinator.fail(error)
                    } else {
                        logger.warning("consumer error", metadata: ["error": "\(error)"])
                    }
                    continue
                }
                var decoded = KafkaMessage(copying: message)
                decoded.assignmentGeneration = coordinator.generation
                // A message fetched before a revocation must not reach the application.
                guard coordinator.owns(decoded.topicPartition) else { continue }
                _ = buffer.push(decoded)
            }

            // Leaves the group; librdkafka calls the rebalance callback (onRevoke) from here.
            let closeErr = rd_kafka_consumer_close(rk)
            if closeErr != RD_KAFKA_RESP_ERR_NO_ERROR {
                logger.warning("consumer close failed", metadata: ["error": "\(KafkaError(closeErr))"])
            }
            handle.destroy()
            callbacks.release()
            let failure = coordinator.failure
            buffer.finish(error: failure)
            finished.signal(failure.map { .failure($0) } ?? .success(()))
        }
    }

    /// Pauses or resumes fetching of these partitions; librdkafka resumes each from the message
    /// after the last one it delivered.
    private static func setPaused(_ paused: Bool, _ partitions: Set<KafkaTopicPartition>, rk: OpaquePointer, logger: Logger) {
        guard !partitions.isEmpty else { return }
        let list = TopicPartitionList.make(partitions)
        defer { rd_kafka_topic_partition_list_destroy(list) }
        let err = paused ? rd_kafka_pause_partitions(rk, list) : rd_kafka_resume_partitions(rk, list)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.warning(paused ? "cannot pause fetching" : "cannot resume fetching", metadata: ["error": "\(KafkaError(err))"])
        } else {
            logger.debug(paused ? "buffer full: fetching paused" : "fetching resumed", metadata: ["partitions": "\(partitions.count)"])
        }
    }

    private static func errorText(_ message: UnsafeMutablePointer<rd_kafka_message_t>) -> String? {
        rd_kafka_message_errstr(message).map { String(cString: $0) }
    }
}
