import HearthEvents
import HearthKafka
import Logging
import ServiceLifecycle
import Synchronization

/// Reads every partition of one topic without a consumer group, from the high watermarks at
/// start-up onwards, and hands each message to a handler.
///
/// For live fan-out to HTTP streams: every gateway instance must see every event (a group would
/// hand each instance only some partitions), and a stream only wants what happens while it is
/// open. A reader that stops (broker gone, fatal error) is restarted where it left off.
struct LiveTopicFollower: Sendable {
    let topic: Topic
    let bootstrapServers: String
    let fetchWaitMs: Int
    let errorBackoffMs: Int
    let logger: Logger

    /// Returns at shutdown. `positioned(true)` once reading (events published from then on are
    /// handled), `positioned(false)` when it stops.
    func run(positioned: @Sendable (Bool) -> Void, handle: @Sendable (KafkaMessage) async -> Void) async {
        let partitions = (0..<Int32(topic.partitions)).map { KafkaTopicPartition(topic: topic.name, partition: $0) }
        guard var next = await startOffsets(partitions) else { return }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let reader = KafkaRangeReader(
                bootstrapServers: bootstrapServers,
                ranges: Dictionary(uniqueKeysWithValues: next.map { ($0.key, $0.value..<Int64.max) }),
                follow: true,
                additional: ["fetch.wait.max.ms": String(fetchWaitMs), "fetch.error.backoff.ms": String(errorBackoffMs)],
                logger: logger)
            do {
                try await withGracefulShutdownHandler {
                    var iterator = reader.makeAsyncIterator()
                    positioned(true)
                    while let message = try await iterator.next() {
                        next[message.topicPartition] = message.offset + 1
                        await handle(message)
                    }
                } onGracefulShutdown: {
                    reader.cancel()
                }
            } catch {
                logger.warning("\(topic.name) follower stopped, restarting", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(500))
            }
            reader.cancel()
        }
        positioned(false)
    }

    /// The high watermark of every partition, asked until the broker answers (or shutdown).
    private func startOffsets(_ partitions: [KafkaTopicPartition]) async -> [KafkaTopicPartition: Int64]? {
        let admin = KafkaAdmin(bootstrapServers: bootstrapServers, logger: logger)
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                return try await admin.watermarks(partitions).mapValues(\.high)
            } catch {
                logger.warning("cannot read \(topic.name) watermarks yet, retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return nil
    }
}

/// The live streams waiting on each key (a run, a user), for a hub that fans events out to them.
final class StreamSubscribers<Key: Hashable & Sendable, Element: Sendable>: Sendable {
    typealias Continuation = AsyncStream<Element>.Continuation

    private struct State {
        var byKey: [Key: [UInt64: Continuation]] = [:]
        var nextId: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A new stream for `key`; dropping or finishing it unregisters it.
    func add(_ key: Key, bufferingPolicy: Continuation.BufferingPolicy) -> (AsyncStream<Element>, Continuation) {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        let id = state.withLock { state in
            state.nextId += 1
            state.byKey[key, default: [:]][state.nextId] = continuation
            return state.nextId
        }
        continuation.onTermination = { [weak self] _ in self?.remove(key, id) }
        return (stream, continuation)
    }

    var isEmpty: Bool { state.withLock { $0.byKey.isEmpty } }

    /// The streams waiting on `key` now.
    func waiting(on key: Key) -> [Continuation] {
        state.withLock { state in state.byKey[key].map { Array($0.values) } ?? [] }
    }

    /// Ends every stream (the follower stopped for good).
    func finishAll() {
        let all = state.withLock { state -> [Continuation] in
            defer { state.byKey.removeAll() }
            return state.byKey.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }

    private func remove(_ key: Key, _ id: UInt64) {
        state.withLock { state in
            state.byKey[key]?[id] = nil
            if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
        }
    }
}
