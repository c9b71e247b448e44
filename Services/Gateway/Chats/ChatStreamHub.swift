import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import HearthStore
import Logging
import ServiceLifecycle
import Synchronization

/// What a chat stream sends: a new message, a member's read receipt, or a typing or presence
/// signal (`ChatSignals`, never stored).
enum ChatStreamItem: Sendable, Equatable {
    case message(ChatStreamMessage)
    case read(ChatStreamReceipt)
    case signal(ChatSignals.Signal)
}

struct ChatStreamMessage: Sendable, Equatable {
    var messageId: UUID
    var chatId: UUID
    var authorId: UUID
    var authorName: String
    var text: String
    var clientId: String
    var sentAt: Date
    var media: ChatMedia? = nil
}

/// The image a message carries (`chat.media_shared`), as the message rows keep it.
struct ChatMedia: Sendable, Equatable {
    var mediaId: UUID
    var contentType: String
    var size: Int
    var width: Int
    var height: Int
}

struct ChatStreamReceipt: Sendable, Equatable {
    var chatId: UUID
    var userId: UUID
    var upTo: UUID
    var readAt: Date
}

/// Fans `chat.message_sent` and `chat.read` out to the `GET /v1/chats/{id}/stream` connections
/// of their chat.
///
/// Like the inbox and assist hubs, every gateway instance reads every partition of `chats`
/// itself, without a consumer group, from the high watermark at start-up: a stream only wants
/// what happens while it is open (the history endpoint and `Last-Event-ID` serve the past). All
/// events of a chat share its key, hence one partition, so a stream sees them in the order
/// they were published.
final class ChatStreamHub: Service, Sendable {
    private let follower: LiveTopicFollower
    private let subscribers = StreamSubscribers<String, ChatStreamItem>()
    private let following = Atomic<Bool>(false)

    /// Opens the sealed text and author name of the messages it passes on.
    private let keys: DataKeyRing

    init(bootstrapServers: String, keys: DataKeyRing, logger: Logger) {
        self.keys = keys
        follower = LiveTopicFollower(
            topic: .chats, bootstrapServers: bootstrapServers, fetchWaitMs: 50, errorBackoffMs: 50, logger: logger)
    }

    /// True once the follower is positioned: events published from now on reach subscribers.
    var isFollowing: Bool { following.load(ordering: .acquiring) }

    /// The chat's live messages and receipts until the returned stream is dropped.
    func subscribe(_ chatId: UUID) -> AsyncStream<ChatStreamItem> {
        subscribers.add(chatId.uuidString.lowercased(), bufferingPolicy: .bufferingNewest(1000)).0
    }

    /// A typing or presence signal heard from any gateway, to this gateway's streams of its chat.
    func deliver(_ signal: ChatSignals.Signal) {
        for continuation in subscribers.waiting(on: signal.chatId.uuidString.lowercased()) { continuation.yield(.signal(signal)) }
    }

    func run() async throws {
        await follower.run(
            positioned: { [self] in following.store($0, ordering: .releasing) },
            handle: { [self] message in await Self.dispatch(message, to: subscribers, keys: keys) })
        subscribers.finishAll()
    }

    /// Events of chats nobody here is watching are dropped after a glance at the key.
    private static func dispatch(_ message: KafkaMessage, to subscribers: StreamSubscribers<String, ChatStreamItem>, keys: DataKeyRing) async {
        guard let keyBytes = message.key else { return }
        let waiting = subscribers.waiting(on: String(decoding: keyBytes, as: UTF8.self))
        guard !waiting.isEmpty, let hint = EventHeaders.typeHint(of: message),
              [ChatMessageSent.eventType, ChatMediaShared.eventType, ChatRead.eventType].contains(hint.type),
              let value = await keys.openPatiently(message.value),
              case .event(let decoded)? = try? EventCatalogue.hearth.decode(Data(value), hint: hint)
        else { return }
        let item: ChatStreamItem
        switch decoded.payload {
        case let sent as ChatMessageSent:
            item = .message(
                ChatStreamMessage(
                    messageId: sent.messageId, chatId: sent.chatId, authorId: sent.authorId, authorName: sent.authorName, text: sent.text,
                    clientId: sent.clientId, sentAt: decoded.metadata.occurredAt))
        case let shared as ChatMediaShared:
            item = .message(
                ChatStreamMessage(
                    messageId: shared.messageId, chatId: shared.chatId, authorId: shared.authorId, authorName: shared.authorName,
                    text: shared.caption, clientId: shared.clientId, sentAt: decoded.metadata.occurredAt,
                    media: ChatMedia(
                        mediaId: shared.mediaId, contentType: shared.mediaType, size: shared.mediaSize, width: shared.mediaWidth,
                        height: shared.mediaHeight)))
        case let read as ChatRead:
            item = .read(ChatStreamReceipt(chatId: read.chatId, userId: read.userId, upTo: read.upTo, readAt: decoded.metadata.occurredAt))
        default:
            return
        }
        for continuation in waiting { continuation.yield(item) }
    }
}
