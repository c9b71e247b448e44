import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import Logging
import ServiceLifecycle
import Synchronization

/// One event of a run as the gateway streams it: `data` is JSON text, exactly as the orchestrator
/// wrote it (and as the `assist_run_events` read model stores it, so live and replayed streams match).
struct RunStreamEventText: Sendable, Equatable {
    var seq: Int
    var event: String
    var data: String
    var elapsedMs: Int?
}

/// Fans `assist.events` out to the HTTP streams waiting for each run.
///
/// Every gateway instance reads every partition itself, without a consumer group (a group would
/// hand each instance only some runs), from the high watermark at start-up onwards: a stream
/// subscribes before its request is published, so whatever the run emits is after that point.
/// Events of runs nobody here is waiting for are dropped after a glance at the key.
final class RunEventHub: Service, Sendable {
    typealias Continuation = AsyncStream<RunStreamItem>.Continuation

    private let bootstrapServers: String
    private let fetchWaitMs: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var subscribers: [String: [UInt64: Continuation]] = [:]
        var nextId: UInt64 = 0
        var following = false
    }

    init(bootstrapServers: String, fetchWaitMs: Int, logger: Logger) {
        self.bootstrapServers = bootstrapServers
        self.fetchWaitMs = fetchWaitMs
        self.logger = logger
    }

    /// True once the follower is positioned: events published from now on reach subscribers.
    var isFollowing: Bool { state.withLock { $0.following } }

    /// Starts buffering the run's events. Subscribe before the request is published; finish the
    /// subscription (or drop it) when the stream ends.
    func subscribe(_ runId: UUID) -> RunSubscription {
        let key = runId.uuidString.lowercased()
        let (stream, continuation) = AsyncStream<RunStreamItem>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            state.nextId += 1
            state.subscribers[key, default: [:]][state.nextId] = continuation
            return state.nextId
        }
        continuation.onTermination = { [weak self] _ in self?.remove(key, id) }
        return RunSubscription(stream: stream, continuation: continuation)
    }

    private func remove(_ key: String, _ id: UInt64) {
        state.withLock { state in
            state.subscribers[key]?[id] = nil
            if state.subscribers[key]?.isEmpty == true { state.subscribers[key] = nil }
        }
    }

    func run() async throws {
        let partitions = (0..<Int32(Topic.assistEvents.partitions)).map { KafkaTopicPartition(topic: Topic.assistEvents.name, partition: $0) }
        guard var next = await startOffsets(partitions) else { return }
        // A follower that stops (broker gone, fatal error) is restarted where it left off.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let reader = KafkaRangeReader(
                bootstrapServers: bootstrapServers,
                ranges: Dictionary(uniqueKeysWithValues: next.map { ($0.key, $0.value..<Int64.max) }),
                follow: true,
                additional: ["fetch.wait.max.ms": String(fetchWaitMs), "fetch.error.backoff.ms": "10"],
                logger: logger)
            do {
                try await withGracefulShutdownHandler {
                    var iterator = reader.makeAsyncIterator()
                    state.withLock { $0.following = true }
                    while let message = try await iterator.next() {
                        next[message.topicPartition] = message.offset + 1
                        dispatch(message)
                    }
                } onGracefulShutdown: {
                    reader.cancel()
                }
            } catch {
                logger.warning("assist.events follower stopped, restarting", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(500))
            }
            reader.cancel()
        }
        finishAll()
    }

    /// The high watermark of every partition, asked until the broker answers (or shutdown).
    private func startOffsets(_ partitions: [KafkaTopicPartition]) async -> [KafkaTopicPartition: Int64]? {
        let admin = KafkaAdmin(bootstrapServers: bootstrapServers, logger: logger)
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                var offsets: [KafkaTopicPartition: Int64] = [:]
                for partition in partitions { offsets[partition] = try await admin.watermarks(partition).high }
                return offsets
            } catch {
                logger.warning("cannot read assist.events watermarks yet, retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return nil
    }

    private func dispatch(_ message: KafkaMessage) {
        guard let keyBytes = message.key else { return }
        let key = String(decoding: keyBytes, as: UTF8.self)
        let waiting = state.withLock { state in state.subscribers[key].map { Array($0.values) } }
        guard let waiting, !waiting.isEmpty else { return }
        guard let event = RunEventDispatcher.decode(message) else { return }
        for continuation in waiting { continuation.yield(.event(event)) }
    }

    private func finishAll() {
        let all = state.withLock { state -> [Continuation] in
            state.following = false
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }
}

/// Turns `assist.run_event` messages into stream text, reading the envelope's JSON without
/// decoding the event's data (a whole plan, passed on as the orchestrator wrote it).
private enum RunEventDispatcher {
    static func decode(_ message: KafkaMessage) -> RunStreamEventText? {
        // Other event types of the topic (run started/completed) are for the read models.
        guard let hint = EventHeaders.typeHint(of: message), hint.type == AssistRunEvent.eventType, hint.version == AssistRunEvent.version,
              let event = AssistRunEventText(envelope: message.value)
        else { return nil }
        return RunStreamEventText(seq: event.seq, event: event.event, data: event.data, elapsedMs: event.elapsedMs)
    }
}

/// What a stream waits on: the run's events, and heartbeat ticks.
enum RunStreamItem: Sendable {
    case event(RunStreamEventText)
    case heartbeat
}

/// A stream's registration with the hub. Finishing it (or dropping every reference to its
/// stream) unregisters it.
struct RunSubscription: Sendable {
    let stream: AsyncStream<RunStreamItem>
    let continuation: AsyncStream<RunStreamItem>.Continuation

    func finish() { continuation.finish() }
}
