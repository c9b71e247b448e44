import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import Logging
import ServiceLifecycle
import Synchronization

/// An inbox notification as the stream sends it.
struct InboxItem: Sendable, Equatable {
    var notificationId: UUID
    var reminderId: UUID
    var title: String
    var body: String?
    var createdAt: Date
    var read: Bool
}

/// Fans inbox notifications out to the `GET /v1/notifications/stream` connections of their user.
///
/// Like the assist follower, every gateway instance reads every partition of `notifications`
/// itself, without a consumer group, from the high watermark at start-up: a stream only wants
/// what happens while it is open (the list endpoint serves the past).
final class NotificationHub: Service, Sendable {
    typealias Continuation = AsyncStream<InboxItem>.Continuation

    private let bootstrapServers: String
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var subscribers: [UUID: [UInt64: Continuation]] = [:]
        var nextId: UInt64 = 0
        var following = false
    }

    init(bootstrapServers: String, logger: Logger) {
        self.bootstrapServers = bootstrapServers
        self.logger = logger
    }

    var isFollowing: Bool { state.withLock { $0.following } }

    /// The user's live inbox notifications until the returned stream is dropped.
    func subscribe(_ userId: UUID) -> AsyncStream<InboxItem> {
        let (stream, continuation) = AsyncStream<InboxItem>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = state.withLock { state in
            state.nextId += 1
            state.subscribers[userId, default: [:]][state.nextId] = continuation
            return state.nextId
        }
        continuation.onTermination = { [weak self] _ in self?.remove(userId, id) }
        return stream
    }

    private func remove(_ userId: UUID, _ id: UInt64) {
        state.withLock { state in
            state.subscribers[userId]?[id] = nil
            if state.subscribers[userId]?.isEmpty == true { state.subscribers[userId] = nil }
        }
    }

    func run() async throws {
        let topic = Topic.notifications
        let partitions = (0..<Int32(topic.partitions)).map { KafkaTopicPartition(topic: topic.name, partition: $0) }
        guard var next = await startOffsets(partitions) else { return }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let reader = KafkaRangeReader(
                bootstrapServers: bootstrapServers,
                ranges: Dictionary(uniqueKeysWithValues: next.map { ($0.key, $0.value..<Int64.max) }),
                follow: true,
                additional: ["fetch.wait.max.ms": "50", "fetch.error.backoff.ms": "50"],
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
                logger.warning("notifications follower stopped, restarting", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(500))
            }
            reader.cancel()
        }
        let all = state.withLock { state -> [Continuation] in
            state.following = false
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }

    private func startOffsets(_ partitions: [KafkaTopicPartition]) async -> [KafkaTopicPartition: Int64]? {
        let admin = KafkaAdmin(bootstrapServers: bootstrapServers, logger: logger)
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                var offsets: [KafkaTopicPartition: Int64] = [:]
                for partition in partitions { offsets[partition] = try await admin.watermarks(partition).high }
                return offsets
            } catch {
                logger.warning("cannot read notifications watermarks yet, retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return nil
    }

    private func dispatch(_ message: KafkaMessage) {
        guard let hint = EventHeaders.typeHint(of: message), hint.type == NotificationSent.eventType else { return }
        guard state.withLock({ !$0.subscribers.isEmpty }) else { return }
        guard case .event(let decoded)? = try? EventCatalogue.hearth.decode(Data(message.value), hint: hint),
              let sent = decoded.payload as? NotificationSent, sent.channel == "inbox"
        else { return }
        let waiting = state.withLock { state in state.subscribers[sent.userId].map { Array($0.values) } ?? [] }
        let item = InboxItem(
            notificationId: sent.notificationId, reminderId: sent.reminderId, title: sent.title, body: sent.body,
            createdAt: decoded.metadata.occurredAt, read: false)
        for continuation in waiting { continuation.yield(item) }
    }
}
