import Foundation
import HearthEvents
import HearthRuntime
import HTTPTypes
import Hummingbird
import PostgresNIO

/// `GET /v1/chats/{id}/stream`: server-sent events of one chat, for its members only (anyone
/// else gets the 404 the other chat routes give).
///
/// - `event: message`, `id: <message_id>`, data `{message_id, chat_id, author_id, author_name,
///   text, client_id, sent_at}` for each new message;
/// - `event: read` (no id, so a reconnect resumes after the last message), data `{chat_id,
///   user_id, up_to, read_at}` for each read receipt;
/// - `: heartbeat` comments while idle.
///
/// With `Last-Event-ID: <message_id>` the stream first sends the messages after that one (at most
/// `maxReplay`, oldest first), then goes on live; a message that arrives both ways is sent once.
struct ChatStreamRoutes: Sendable {
    let chats: ChatReadModel
    let hub: ChatStreamHub
    let heartbeatInterval: Duration
    let streams: OpenStreams

    static let maxReplay = 500

    static func make(host: ServiceHost, chats: ChatReadModel, heartbeat: Duration, streams: OpenStreams) -> ChatStreamRoutes {
        let hub = ChatStreamHub(bootstrapServers: host.settings.kafkaBootstrap, keys: host.keys, logger: host.logger)
        host.readiness.addCheck("follower:chats") { hub.isFollowing }
        return ChatStreamRoutes(chats: chats, hub: hub, heartbeatInterval: heartbeat, streams: streams)
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("chats/{id}/stream") { request, context in try await stream(request, context: context) }
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
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            ticket.hold()
            let encoder = JSONEncoder.hearth()
            encoder.outputFormatting.insert(.sortedKeys)
            var sent = Set<UUID>()
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            for message in missed {
                sent.insert(message.messageId)
                try await writer.write(ByteBuffer(string: try Self.frame(.message(message), encoder: encoder)))
            }
            do {
                try await HeartbeatStream.forEach(live, heartbeat: interval) { item in
                    switch item {
                    case nil:
                        // Membership is checked again at every heartbeat: one who left the household
                        // (or the chat's household removed them) stops receiving within one interval.
                        guard (try? await chats.requireMember(user, of: chatId)) != nil else {
                            try await writer.write(ByteBuffer(string: "event: closed\ndata: {\"reason\":\"not_a_member\"}\n\n"))
                            throw MembershipEnded()
                        }
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    case .message(let message)?:
                        // A replayed message, or a retried send published twice.
                        guard sent.insert(message.messageId).inserted else { return }
                        try await writer.write(ByteBuffer(string: try Self.frame(.message(message), encoder: encoder)))
                    case .read(let receipt)?:
                        try await writer.write(ByteBuffer(string: try Self.frame(.read(receipt), encoder: encoder)))
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

    static func frame(_ item: ChatStreamItem, encoder: JSONEncoder) throws -> String {
        switch item {
        case .message(let message):
            let data = String(decoding: try encoder.encode(ChatMessageView(message)), as: UTF8.self)
            return "event: message\nid: \(message.messageId.uuidString.lowercased())\ndata: \(data)\n\n"
        case .read(let receipt):
            let data = String(decoding: try encoder.encode(ReadData(receipt)), as: UTF8.self)
            return "event: read\ndata: \(data)\n\n"
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
            SELECT message_id, chat_id, author_id, author_name, body, client_id, sent_at FROM chat_messages
            WHERE chat_id = \(chatId) AND seq > (SELECT seq FROM chat_messages WHERE message_id = \(messageId) AND chat_id = \(chatId))
            ORDER BY seq LIMIT \(limit)
            """, logger: logger)
        var messages: [ChatStreamMessage] = []
        for try await (id, chat, author, name, body, clientId, sentAt) in rows.decode((UUID, UUID, UUID, String, String, String, Date).self) {
            messages.append(
                ChatStreamMessage(messageId: id, chatId: chat, authorId: author, authorName: name, text: body, clientId: clientId, sentAt: sentAt))
        }
        return messages
    }
}
