import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Runs one projection: consumes its topics with its own consumer group, applies events in
/// batches, and records offsets in the same transaction, so every event takes effect exactly once
/// however often Kafka redelivers it. Events that keep failing are parked: recorded in
/// `projection_dead_letters` in the transaction that moves the offset past them (`DeadLetterRelay`
/// copies them to `<topic>.dlq`).
public final class ProjectionRunner: Service, Sendable {
    public let projection: any Projection
    private let client: PostgresClient
    private let bootstrapServers: String
    private let catalogue: EventCatalogue
    private let options: ProjectionOptions
    private let logger: Logger
    private let offsetStore: OffsetStore
    private let deadLetterStore: DeadLetterStore
    private let eventDecoder: ProjectedEventDecoder
    private let state = Mutex(State())

    private struct State {
        var nextOffsets: [KafkaTopicPartition: Int64] = [:]
        /// The consumer's assignment generation when each owned partition was last assigned: a
        /// message of an older one was fetched before a revocation and is stale.
        var assignedIn: [KafkaTopicPartition: UInt64] = [:]
        var consumer: KafkaConsumer?
        /// When an offset last moved, partitions were assigned or nothing waited; and the events
        /// waiting at the last look.
        var lastProgress = ContinuousClock.now
        var lag: Int64 = 0
        var stopped = false
    }

    /// What `/readyz` reports of a runner.
    public enum Condition: String, Sendable {
        case ok
        /// The consumer group has not given it its partitions yet.
        case unassigned
        /// Events wait and no offset has moved for `ProjectionOptions.stuckAfter`.
        case stuck
        /// `run()` has ended.
        case stopped
    }

    public init(
        projection: any Projection, client: PostgresClient, keys: DataKeyRing?, bootstrapServers: String,
        catalogue: EventCatalogue = .hearth, options: ProjectionOptions = .init(), logger: Logger
    ) {
        self.projection = projection
        self.client = client
        self.bootstrapServers = bootstrapServers
        self.catalogue = catalogue
        self.options = options
        var logger = logger
        logger[metadataKey: "projection"] = "\(projection.name)"
        self.logger = logger
        self.offsetStore = OffsetStore(projection: projection.name, logger: logger)
        self.deadLetterStore = DeadLetterStore(projection: projection.name, logger: logger)
        self.eventDecoder = ProjectedEventDecoder(catalogue: catalogue, projection: projection, keys: keys, logger: logger)
    }

    /// True once the consumer group has given this instance its partitions (possibly none).
    public var isAssigned: Bool { state.withLock { $0.consumer?.isAssigned ?? false } }

    public var condition: Condition {
        state.withLock { state in
            if state.stopped { return .stopped }
            guard state.consumer?.isAssigned ?? false else { return .unassigned }
            return state.lag > 0 && ContinuousClock.now - state.lastProgress > options.stuckAfter ? .stuck : .ok
        }
    }

    /// Next offsets this instance has applied up to, per partition it owns.
    public var appliedOffsets: [KafkaTopicPartition: Int64] { state.withLock { $0.nextOffsets } }

    public func run() async throws {
        defer { state.withLock { $0.stopped = true } }
        // Dead letters and skips are rare: register their series at zero so dashboards and alerts see them.
        for topic in projection.topics {
            Counter(label: "hearth_dlq_events_total", dimensions: [("projection", projection.name), ("topic", topic.name)]).increment(by: 0)
        }
        for reason in ProjectedEventDecoder.SkipReason.allCases { ProjectedEventDecoder.countSkip(reason, projection: projection.name, by: 0) }
        Gauge(label: "hearth_projection_stuck", dimensions: [("projection", projection.name)]).record(0)
        let buffer = BatchBuffer<KafkaMessage>(capacity: options.maxBatchSize * 4)
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                bootstrapServers: bootstrapServers, groupId: projection.consumerGroup,
                topics: projection.topics.map(\.name), clientId: "hearth-\(projection.name)",
                // The stored offset is the only truth: one outside the log (a recreated topic)
                // stops the runner with that reason instead of silently starting elsewhere.
                autoOffsetReset: "error",
                // An idle fetch otherwise waits up to 500 ms before new events are seen (the dev
                // broker does not answer early); read models should follow writes within milliseconds.
                additional: ["fetch.wait.max.ms": "20"]),
            logger: logger,
            onAssign: { [self] partitions in
                let offsets = try await loadOffsetsRetrying(partitions)
                state.withLock { state in
                    state.nextOffsets.merge(offsets) { _, new in new }
                    let generation = state.consumer?.assignmentGeneration ?? 0
                    for partition in partitions { state.assignedIn[partition] = generation }
                    state.lastProgress = .now
                }
                logger.info("partitions assigned", metadata: ["partitions": "\(partitions.sorted().map { "\($0.topic)/\($0.partition)" })"])
                return offsets
            },
            onRevoke: { [self] partitions in
                // Their events are the next owner's now: nothing of them may be applied here,
                // neither what waits in the buffer nor what a batch in flight still holds (`commit`
                // passes over partitions this runner does not own).
                state.withLock { state in
                    for partition in partitions {
                        state.nextOffsets[partition] = nil
                        state.assignedIn[partition] = nil
                    }
                }
                let revoked = Set(partitions)
                buffer.removeAll { revoked.contains($0.topicPartition) }
                logger.info("partitions revoked", metadata: ["count": "\(partitions.count)"])
            })
        state.withLock { $0.consumer = consumer }

        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await consumer.run() }
            group.addTask {
                defer { buffer.finish() }
                for try await message in consumer {
                    guard await buffer.append(message) else { break }
                }
            }
            group.addTask { [self] in await reportLag(consumer: consumer) }
            // A batch given up (the service is stopping mid-retry) ends the run: taking the next
            // batch would move the offsets past events nobody applied.
            while let batch = await buffer.nextBatch(max: options.maxBatchSize, linger: options.linger) {
                guard try await process(batch, consumer: consumer) == .applied else { break }
            }
            buffer.finish()  // a reader waiting for room must not wait for the consumer to close
            group.cancelAll()
        }
    }

    /// How long an assignment may keep failing to read its start offsets for passing reasons
    /// (Postgres restarting) before the consumer gives up and the service stops saying why.
    static let assignmentDeadline: Duration = .seconds(60)

    /// The stored offsets of newly assigned partitions, read again with back-off while Postgres
    /// fails for a passing reason: a restart of Postgres during a rebalance must not end the
    /// process. Runs on the consumer's poll thread (inside the rebalance), so it is bounded.
    private func loadOffsetsRetrying(_ partitions: [KafkaTopicPartition]) async throws -> [KafkaTopicPartition: Int64] {
        let deadline = ContinuousClock.now + Self.assignmentDeadline
        var backoff = options.initialBackoff
        while true {
            do {
                return try await offsetStore.load(partitions, client: client)
            } catch where FailureClassification.isTransient(error) && ContinuousClock.now + backoff < deadline {
                logger.warning("cannot read the assigned partitions' offsets yet; retrying", metadata: ["error": "\(FailureClassification.describe(error))"])
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, options.maxBackoff)
            }
        }
    }

    // MARK: Applying

    /// What became of a batch: applied or parked through its last event, or given up part way
    /// because the service is stopping (then the runner takes no further batch).
    private enum Outcome { case applied, stopping }

    /// Applies a batch; a batch that fails for a reason of its own is taken apart (`isolate`).
    /// Throws only `OffsetGap`, which ends the run.
    private func process(_ batch: [KafkaMessage], consumer: KafkaConsumer) async throws -> Outcome {
        let started = ContinuousClock.now
        let traceStart = EventTracing.spanStart()
        do {
            guard try await commitRetrying(batch, action: .apply) == .applied else { return .stopping }
        } catch let gap as OffsetGap {
            throw gap
        } catch {
            logger.warning("batch failed, isolating the failing event", metadata: ["error": "\(FailureClassification.describe(error))", "size": "\(batch.count)"])
            return try await isolate(batch, consumer: consumer)
        }
        Timer(label: "hearth_projection_apply_duration_seconds", dimensions: [("projection", projection.name)])
            .record(duration: ContinuousClock.now - started)
        countConsumed(batch)
        EventTracing.recordApplied(batch, projection: projection.name, started: traceStart, reads: readsForTracing)
        consumer.storeOffsets(state.withLock { $0.nextOffsets })
        return .applied
    }

    /// Whether the projection applied `message` or passed over its type (a span only for the former).
    private func readsForTracing(_ message: KafkaMessage) -> Bool {
        eventDecoder.reads(EventHeaders.typeHint(of: message))
    }

    /// Applies one message at a time, so one bad event cannot hold back the others; an event that
    /// fails `maxAttempts` times is parked, then passed over.
    private func isolate(_ batch: [KafkaMessage], consumer: KafkaConsumer) async throws -> Outcome {
        defer { consumer.storeOffsets(state.withLock { $0.nextOffsets }) }
        for message in batch {
            var attempts = 0
            var backoff = options.initialBackoff
            let traceStart = EventTracing.spanStart()
            while true {
                do {
                    guard try await commitRetrying([message], action: .apply) == .applied else { return .stopping }
                    countConsumed([message])
                    EventTracing.recordApplied([message], projection: projection.name, started: traceStart, reads: readsForTracing)
                    break
                } catch let gap as OffsetGap {
                    throw gap
                } catch {
                    attempts += 1
                    if attempts < options.maxAttempts {
                        if await pause(&backoff) { return .stopping }
                        continue
                    }
                    guard try await park(message, error: error) == .applied else { return .stopping }
                    break
                }
            }
        }
        return .applied
    }

    /// `commit`, again while it fails for a passing reason: offsets another owner (or a replay's
    /// swap) moved are read again, transient database failures back off. Other failures are the
    /// events' own and are thrown, as is an `OffsetGap` that reading the offsets again does not
    /// explain.
    private func commitRetrying(_ messages: [KafkaMessage], action: Action) async throws -> Outcome {
        var backoff = options.initialBackoff
        var reloadedForGap = false
        while true {
            do {
                let limit = options.commitTimeout
                _ = try await Deadline.run(limit) { [self] in try await commit(messages, action: action) }
                return .applied
            } catch let newer as NewerEventVersion {
                logger.warning("holding a partition at an event newer than this build", metadata: ["error": "\(newer)"])
                if await pause(&backoff) { return .stopping }
            } catch let gap as OffsetGap {
                guard !reloadedForGap else { throw gap }
                do {
                    _ = try await refreshOffsets(for: messages)
                    reloadedForGap = true
                } catch {
                    if await pause(&backoff) { return .stopping }
                }
            } catch where FailureClassification.isOffsetConflict(error) {
                // Read again; if the stored offsets are what this runner already held (a row
                // changed and changed back, or removed by hand), back off rather than spin.
                let changed = (try? await refreshOffsets(for: messages)) ?? false
                if !changed, await pause(&backoff) { return .stopping }
            } catch let exceeded as Deadline.Exceeded {
                // The transaction neither committed nor failed in time (its connection lost without
                // an answer): try again on another; the compare-and-set keeps it to one effect.
                logger.warning("a batch's transaction did not finish in time; retrying it", metadata: ["error": "\(exceeded)"])
                if await pause(&backoff) { return .stopping }
            } catch where FailureClassification.isTransient(error) {
                logger.warning("transient failure, retrying batch", metadata: ["error": "\(FailureClassification.describe(error))"])
                if await pause(&backoff) { return .stopping }
            }
        }
    }

    /// What a commit does with the events it moves the offsets past.
    private enum Action {
        case apply
        /// Records them in `projection_dead_letters` instead, with why they could not be applied.
        case park(reason: String)
    }

    /// One transaction: move the offsets past the events not yet applied, and apply (or park) them.
    @discardableResult
    private func commit(_ messages: [KafkaMessage], action: Action) async throws -> Int {
        // Only partitions this runner owns, and only messages of their current assignment: `onAssign`
        // loaded their offsets before any of their events was delivered, a revoked one's events
        // belong to the next owner, and a message the reader held across a revocation is stale (the
        // consumer delivers that partition again from the stored offset).
        let (known, assignedIn) = state.withLock { ($0.nextOffsets, $0.assignedIn) }
        var moves: [KafkaTopicPartition: (expected: Int64, next: Int64)] = [:]
        var events: [ProjectedEvent] = []
        events.reserveCapacity(messages.count)
        var toPark: [KafkaMessage] = []
        if case .apply = action {
            try await eventDecoder.prepare(messages.lazy.filter { [eventDecoder] in eventDecoder.reads(EventHeaders.typeHint(of: $0)) }.map(\.value))
        }
        // An event newer than this build holds the projection there: what comes before it is
        // applied, then the refusal is thrown for the caller to wait on.
        var heldAt: NewerEventVersion?
        for message in messages {
            let partition = message.topicPartition
            guard let expected = known[partition], message.assignmentGeneration >= assignedIn[partition, default: 0] else { continue }
            let current = moves[partition]?.next ?? expected
            guard message.offset >= current else { continue }  // applied already: a redelivery
            guard message.offset == current else { throw OffsetGap(partition: partition, expected: current, found: message.offset) }
            do {
                switch action {
                case .apply: if let event = try decode(message) { events.append(event) }
                case .park: toPark.append(message)
                }
            } catch let newer as NewerEventVersion {
                heldAt = newer
                break
            }
            moves[partition] = (expected: expected, next: message.offset + 1)
        }
        guard !moves.isEmpty else {
            if let heldAt { throw heldAt }
            return 0
        }
        let toApply = events
        let parking = toPark
        let finalMoves = moves
        try await client.withTransaction(logger: logger) { connection in
            // The offsets first: the compare-and-set locks their rows, so another owner of these
            // partitions (a runner that has not seen the rebalance yet, a replay's swap) waits or
            // is refused here, before any effect of `apply` (an announcement, a conflicting row).
            try await offsetStore.advance(finalMoves, on: connection)
            if !toApply.isEmpty {
                try await projection.apply(toApply, on: connection, logger: logger)
                if projection.announcesChanges { try await ReadModelChanges.announce(projection.name, on: connection, logger: logger) }
            }
            if case .park(let reason) = action {
                for message in parking { try await deadLetterStore.park(message, reason: reason, on: connection) }
            }
        }
        if case .park(let reason) = action {
            for message in parking {
                Counter(label: "hearth_dlq_events_total", dimensions: [("projection", projection.name), ("topic", message.topic)]).increment()
                logger.error("event parked", metadata: [
                    "topic": "\(message.topic)", "partition": "\(message.partition)", "offset": "\(message.offset)", "error": "\(reason)",
                ])
            }
        }
        state.withLock { state in
            state.lastProgress = .now
            for (partition, move) in finalMoves {
                if let current = state.nextOffsets[partition], current < move.next { state.nextOffsets[partition] = move.next }
            }
        }
        if let heldAt { throw heldAt }
        return toApply.count
    }

    /// Records the event as parked and moves the offset past it, in one transaction; again while
    /// that fails (Postgres is down): the event is neither lost nor applied meanwhile.
    private func park(_ message: KafkaMessage, error: any Error) async throws -> Outcome {
        let action = Action.park(reason: FailureClassification.describe(error))
        var backoff = options.initialBackoff
        while true {
            do {
                return try await commitRetrying([message], action: action)
            } catch let gap as OffsetGap {
                throw gap
            } catch {
                logger.error("cannot park an event", metadata: ["error": "\(FailureClassification.describe(error))"])
                if await pause(&backoff) { return .stopping }
            }
        }
    }

    private func decode(_ message: KafkaMessage) throws -> ProjectedEvent? {
        try eventDecoder.decode(
            position: EventPosition(topic: message.topic, partition: message.partition, offset: message.offset),
            value: message.value, hint: EventHeaders.typeHint(of: message))
    }

    // MARK: Helpers

    /// Reads the stored offsets again, of the partitions this runner still owns. True when one of
    /// them differed from what the runner held.
    @discardableResult
    private func refreshOffsets(for messages: [KafkaMessage]) async throws -> Bool {
        let owned = state.withLock { Set($0.nextOffsets.keys) }
        let partitions = Array(Set(messages.map(\.topicPartition)).intersection(owned))
        guard !partitions.isEmpty else { return true }  // none of them is ours any more: nothing to wait for
        let fresh = try await offsetStore.read(partitions, client: client)
        return state.withLock { state in
            var changed = false
            for (partition, offset) in fresh where state.nextOffsets[partition] != nil && state.nextOffsets[partition] != offset {
                state.nextOffsets[partition] = offset
                changed = true
            }
            return changed
        }
    }

    /// Sleeps with exponential back-off. True when the service is stopping and the caller should give up.
    private func pause(_ backoff: inout Duration) async -> Bool {
        if Task.isCancelled || Task.isShuttingDownGracefully { return true }
        try? await Task.sleep(for: backoff)
        backoff = min(backoff * 2, options.maxBackoff)
        return Task.isCancelled || Task.isShuttingDownGracefully
    }

    private func countConsumed(_ messages: [KafkaMessage]) {
        var perTopic: [String: Int] = [:]
        for message in messages { perTopic[message.topic, default: 0] += 1 }
        for (topic, count) in perTopic {
            Counter(label: "hearth_events_consumed_total", dimensions: [("projection", projection.name), ("topic", topic)]).increment(by: count)
        }
    }

    private func reportLag(consumer: KafkaConsumer) async {
        while !Task.isCancelled {
            let high = await consumer.highWatermarks()
            let applied = state.withLock { $0.nextOffsets }
            var total: Int64 = 0
            for (partition, end) in high {
                let lag = max(0, end - (applied[partition] ?? end))
                total += lag
                Gauge(label: "hearth_projection_lag", dimensions: [
                    ("projection", projection.name), ("topic", partition.topic), ("partition", String(partition.partition)),
                ]).record(lag)
            }
            state.withLock { state in
                state.lag = total
                if total == 0 { state.lastProgress = .now }  // caught up: nothing to be stuck on
            }
            Gauge(label: "hearth_projection_stuck", dimensions: [("projection", projection.name)]).record(condition == .stuck ? 1 : 0)
            try? await Task.sleep(for: .seconds(2))
        }
    }
}
