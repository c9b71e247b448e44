import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
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
    private let follower: LiveTopicFollower
    private let subscribers = StreamSubscribers<UUID, InboxItem>()
    private let following = Atomic<Bool>(false)

    /// Opens the sealed title and body of the notifications it passes on.
    private let keys: DataKeyRing

    init(bootstrapServers: String, keys: DataKeyRing, logger: Logger) {
        self.keys = keys
        follower = LiveTopicFollower(
            topic: .notifications, bootstrapServers: bootstrapServers, fetchWaitMs: 50, errorBackoffMs: 50, logger: logger)
    }

    var isFollowing: Bool { following.load(ordering: .acquiring) }

    /// The user's live inbox notifications until the returned stream is dropped.
    func subscribe(_ userId: UUID) -> AsyncStream<InboxItem> {
        subscribers.add(userId, bufferingPolicy: .bufferingNewest(1000)).0
    }

    func run() async throws {
        await follower.run(
            positioned: { [self] in following.store($0, ordering: .releasing) },
            handle: { [self] message in await Self.dispatch(message, to: subscribers, keys: keys) })
        subscribers.finishAll()
    }

    private static func dispatch(_ message: KafkaMessage, to subscribers: StreamSubscribers<UUID, InboxItem>, keys: DataKeyRing) async {
        guard let hint = EventHeaders.typeHint(of: message), hint.type == NotificationSent.eventType else { return }
        guard !subscribers.isEmpty else { return }
        guard let value = await keys.openPatiently(message.value),
              case .event(let decoded)? = try? EventCatalogue.hearth.decode(Data(value), hint: hint),
              let sent = decoded.payload as? NotificationSent, sent.channel == "inbox"
        else { return }
        let waiting = subscribers.waiting(on: sent.userId)
        let item = InboxItem(
            notificationId: sent.notificationId, reminderId: sent.reminderId, title: sent.title, body: sent.body,
            createdAt: decoded.metadata.occurredAt, read: false)
        for continuation in waiting { continuation.yield(item) }
    }
}
