import Foundation
import HearthEvents
import HearthRuntime
import HTTPTypes
import Hummingbird
import PostgresNIO
import ServiceLifecycle

/// `GET /v1/chats/{id}/stream`: server-sent events of one chat, for its members only (anyone
/// else gets the 404 the other chat routes give).
///
/// - `event: message`, `id: <message_id>`, data `{message_id, chat_id, author_id, author_name,
///   text, client_id, sent_at}` for each new message;
/// - `event: read` (no id, so a reconnect resumes after the last message), data `{chat_id,
///   user_id, up_to, read_at}` for each read receipt;
/// - `event: typing`, data `{chat_id, user_id, display_name, until}` while another member types
///   (`POST /v1/chats/{id}/typing`);
/// - `event: presence`, data `{chat_id, user_id, online}` when another member opens or closes the
///   chat's stream, and for everyone else watching when the stream opens;
/// - `event: closed` when the reader stops being a member (they left the household);
/// - `: heartbeat` comments while idle.
///
/// Typing and presence are signals, not events: fanned out through Postgres NOTIFY and never
/// stored in Kafka (`ChatSignals`).
///
/// With `Last-Event-ID: <message_id>` the stream first sends the messages after that one (at most
/// `maxReplay`, oldest first), then goes on live; a message that arrives both ways is sent once.
struct ChatStreamRoutes: Sendable {
    let chats: ChatReadModel
    let hub: ChatStreamHub
    let signals: ChatSignals
    let listener: ChatSignalListener
    let heartbeatInterval: Duration
    let streams: OpenStreams
    /// Whether a stream's token still stands.
    let sessions: AuthSessions

    static let maxReplay = 500

    static func make(host: ServiceHost, chats: ChatReadModel, heartbeat: Duration, streams: OpenStreams, sessions: AuthSessions) -> ChatStreamRoutes {
        let hub = ChatStreamHub(bootstrapServers: host.settings.kafkaBootstrap, keys: host.keys, logger: host.logger)
        host.readiness.addCheck("follower:chats") { hub.isFollowing }
        let signals = ChatSignals(client: host.postgres, logger: host.logger)
        return ChatStreamRoutes(
            chats: chats, hub: hub, signals: signals, listener: ChatSignalListener(client: host.postgres, hub: hub, signals: signals, logger: host.logger),
            heartbeatInterval: heartbeat, streams: streams, sessions: sessions)
    }

    /// The hub following the chats topic and the listener of typing and presence signals.
    var services: [any Service] { [hub, listener] }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("chats/{id}/stream") { request, context in try await stream(request, context: context) }
        routes.post("chats/{id}/typing") { request, context in try await typing(request, context: context) }
    }

    struct Typing: ResponseEncodable {
        var chatId: String
        var until: Date
        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id"
            case until
        }
    }

    /// `POST /v1/chats/{id}/typing`: the caller is typing; the chat's other streams show it for
    /// `ChatSignals.typingSeconds` unless repeated. Members only.
    func typing(_ request: Request, context: HearthRequestContext) async throws -> Typing {
        let user = try context.authenticatedUser()
        let chatId = try context.uuidParameter("id", field: "chat_id")
        _ = try await chats.requireMember(user, of: chatId)
        let until = Timestamp.rounded(Date().addingTimeInterval(TimeInterval(ChatSignals.typingSeconds)))
        try await signals.send(
            ChatSignals.Signal(kind: "typing", chatId: chatId, userId: user, displayName: try await chats.displayName(of: user), online: nil, until: until))
        return Typing(chatId: chatId.uuidString.lowercased(), until: until)
    }

    struct ReadData: Encodable {
        var chatId: String
        var userId: String
        var upTo: String
        var readAt: String

        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id"
            case userId = "user_id"
            case upTo = "up_to"
            case readAt = "read_at"
        }

        init(_ receipt: ChatStreamReceipt) {
            chatId = receipt.chatId.uuidString.lowercased()
            userId = receipt.userId.uuidString.lowercased()
            upTo = receipt.upTo.uuidString.lowercased()
            readAt = Timestamp.format(receipt.readAt)
        }
    }

    func stream(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        guard let chatId = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("chat_id", "the chat id in the path must be a UUID")
        }
        _ = try await chats.requireMember(user, of: chatId)
        let resumeAfter = try Self.lastEventId(request)
        let ticket = try streams.admit(user)
        // Subscribe before reading what was missed, so nothing falls between the two.
        let live = hub.subscribe(chatId)
        let missed = try await missedMessages(in: chatId, after: resumeAfter)
        let interval = heartbeatInterval
        let credential = StreamCredential(context, sessions: sessions)
        // Present while the stream is open, and a little past a heartbeat it missed.
        let connection = UUID()
        let presenceTTL = interval * 2 + .seconds(5)
        try await signals.opened(connection: connection, chat: chatId, user: user, ttl: presenceTTL)
        let watching = try await signals.watching(chatId)
        try? await signals.send(ChatSignals.Signal(kind: "presence", chatId: chatId, userId: user, displayName: nil, online: true, until: nil))
        let signals = self.signals
        let links = chats.links
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            ticket.hold()
            let encoder = JSONEncoder.hearth()
            encoder.outputFormatting.insert(.sortedKeys)
            var sent = Set<UUID>()
            defer {
                // The stream is gone (closed, or the client went away): so is its presence.
                Task {
                    let stillWatching = (try? await signals.closed(connection: connection, chat: chatId, user: user)) ?? false
                    if !stillWatching {
                        try? await signals.send(ChatSignals.Signal(kind: "presence", chatId: chatId, userId: user, displayName: nil, online: false, until: nil))
                    }
                }
            }
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            for watcher in watching.sorted(by: { $0.uuidString < $1.uuidString }) where watcher != user {
                let presence = ChatSignals.Signal(kind: "presence", chatId: chatId, userId: watcher, displayName: nil, online: true, until: nil)
                try await writer.write(ByteBuffer(string: try Self.frame(links: links, .signal(presence), encoder: encoder)))
            }
            for message in missed {
                sent.insert(message.messageId)
                try await writer.write(ByteBuffer(string: try Self.frame(links: links, .message(message), encoder: encoder)))
            }
            // Membership is checked again at every heartbeat and before anything is sent once the
            // last check is a second old: one who left the household (or whose coaching ended)
            // receives nothing more, and the stream closes.
            var checkedAt = ContinuousClock.now
            func stillMember(force: Bool) async throws {
                guard force || ContinuousClock.now - checkedAt > .seconds(1) else { return }
                // The token too: a signed-out session or an expired token ends the stream.
                guard await credential.stands() else {
                    try await writer.write(ByteBuffer(string: StreamCredential.closedFrame))
                    throw MembershipEnded()
                }
                guard (try? await chats.requireMember(user, of: chatId)) != nil else {
                    try await writer.write(ByteBuffer(string: "event: closed\ndata: {\"reason\":\"not_a_member\"}\n\n"))
                    throw MembershipEnded()
                }
                checkedAt = ContinuousClock.now
            }
            do {
                try await HeartbeatStream.forEach(live, heartbeat: interval) { item in
                    try await stillMember(force: item == nil)
                    switch item {
                    case nil:
                        try? await signals.refreshed(connection: connection, ttl: presenceTTL)
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    case .message(let message)?:
                        // A replayed message, or a retried send published twice.
                        guard sent.insert(message.messageId).inserted else { return }
                        try await writer.write(ByteBuffer(string: try Self.frame(links: links, .message(message), encoder: encoder)))
                    case .read(let receipt)?:
                        try await writer.write(ByteBuffer(string: try Self.frame(links: links, .read(receipt), encoder: encoder)))
                    case .signal(let signal)?:
                        // One's own typing and comings and goings are not news to oneself.
                        guard signal.userId != user else { return }
                        try await writer.write(ByteBuffer(string: try Self.frame(links: links, .signal(signal), encoder: encoder)))
                    }
                }
            } catch is MembershipEnded {}
            try await writer.finish(nil)
        })
    }

    /// Ends a stream whose reader is no longer a member of the chat's household.
    private struct MembershipEnded: Error {}

    private func missedMessages(in chatId: UUID, after messageId: UUID?) async throws -> [ChatStreamMessage] {
        guard let messageId else { return [] }
        guard try await chats.message(messageId, in: chatId) != nil else {
            throw APIError.invalid("Last-Event-ID", "Last-Event-ID is not a message of this chat")
        }
        return try await chats.streamMessages(in: chatId, after: messageId, limit: Self.maxReplay)
    }

    static func frame(links: ChatMediaLinks, _ item: ChatStreamItem, encoder: JSONEncoder) throws -> String {
        switch item {
        case .message(let message):
            let data = String(decoding: try encoder.encode(ChatMessageView(message, links: links)), as: UTF8.self)
            return "event: message\nid: \(message.messageId.uuidString.lowercased())\ndata: \(data)\n\n"
        case .read(let receipt):
            let data = String(decoding: try encoder.encode(ReadData(receipt)), as: UTF8.self)
            return "event: read\ndata: \(data)\n\n"
        case .signal(let signal):
            // Neither has an id: a reconnect resumes after the last message.
            let data = String(decoding: try encoder.encode(signal), as: UTF8.self)
            return "event: \(signal.kind == "typing" ? "typing" : "presence")\ndata: \(data)\n\n"
        }
    }

    /// `Last-Event-ID`: the id of the last message the client has; absent means live only.
    static func lastEventId(_ request: Request) throws -> UUID? {
        guard let name = HTTPField.Name("Last-Event-ID"), let text = request.headers[name]?.trimmingCharacters(in: .whitespaces),
              !text.isEmpty
        else { return nil }
        guard let id = UUID(uuidString: text) else { throw APIError.invalid("Last-Event-ID", "Last-Event-ID must be a message id") }
        return id
    }
}

extension ChatReadModel {
    /// The chat's messages after `messageId`, oldest first, for a stream that resumes.
    func streamMessages(in chatId: UUID, after messageId: UUID, limit: Int) async throws -> [ChatStreamMessage] {
        let rows = try await client.query(
            """
            SELECT message_id, chat_id, author_id, author_name, body, client_id, sent_at, media_id, media_type, media_size, media_width, media_height
            FROM chat_messages
            WHERE chat_id = \(chatId) AND seq > (SELECT seq FROM chat_messages WHERE message_id = \(messageId) AND chat_id = \(chatId))
            ORDER BY seq LIMIT \(limit)
            """, logger: logger)
        var messages: [ChatStreamMessage] = []
        for try await row in rows.decode((UUID, UUID, UUID, String, String, String, Date, UUID?, String?, Int?, Int?, Int?).self) {
            messages.append(
                ChatStreamMessage(
                    messageId: row.0, chatId: row.1, authorId: row.2, authorName: row.3, text: row.4, clientId: row.5, sentAt: row.6,
                    media: Self.media(row.7, row.8, row.9, row.10, row.11)))
        }
        return messages
    }
}
