import Foundation
import HearthRuntime
import Hummingbird
import Logging
import PostgresNIO

/// A chat message in the API's shape.
struct ChatMessageView: ResponseEncodable, Sendable {
    var messageId: String
    var chatId: String
    var authorId: String
    var authorName: String
    var text: String
    var clientId: String
    var sentAt: Date
    /// The other members whose read receipt reaches this message (history only: a message just
    /// sent or streamed is read by nobody yet).
    var readBy: [String] = []
    /// For a message carrying an image: its type, signed links that expire
    /// (`ChatMediaLinks`), its size in bytes and its pixel size.
    var mediaType: String? = nil
    var mediaURL: String? = nil
    var mediaThumbnailURL: String? = nil
    var mediaSize: Int? = nil
    var mediaDimensions: MediaDimensions? = nil

    struct MediaDimensions: Encodable, Sendable {
        var width: Int
        var height: Int
    }

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case chatId = "chat_id"
        case authorId = "author_id"
        case authorName = "author_name"
        case text
        case clientId = "client_id"
        case sentAt = "sent_at"
        case readBy = "read_by"
        case mediaType = "media_type"
        case mediaURL = "media_url"
        case mediaThumbnailURL = "media_thumbnail_url"
        case mediaSize = "media_size"
        case mediaDimensions = "media_dimensions"
    }

    /// The message with its image's links signed now.
    func carrying(_ media: ChatMedia?, links: ChatMediaLinks) -> ChatMessageView {
        guard let media, let chat = UUID(uuidString: chatId) else { return self }
        var view = self
        view.mediaType = media.contentType
        view.mediaURL = links.link(chat: chat, media: media.mediaId, variant: .image)
        view.mediaThumbnailURL = links.link(chat: chat, media: media.mediaId, variant: .thumbnail)
        view.mediaSize = media.size
        view.mediaDimensions = MediaDimensions(width: media.width, height: media.height)
        return view
    }
}

/// One chat as the chat list shows it.
struct ChatSummaryView: Encodable, Sendable {
    struct Member: Encodable, Sendable {
        var userId: String
        var displayName: String?
        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case displayName = "display_name"
        }
    }

    var chatId: String
    var householdId: String
    var title: String?
    var members: [Member]
    var lastMessage: ChatMessageView?
    var unreadCount: Int
    var lastActivityAt: Date

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case householdId = "household_id"
        case title, members
        case lastMessage = "last_message"
        case unreadCount = "unread_count"
        case lastActivityAt = "last_activity_at"
    }
}

extension ChatMessageView {
    /// A message as the live stream received it, in the same shape as the history.
    init(_ message: ChatStreamMessage, links: ChatMediaLinks) {
        self = ChatMessageView(
            messageId: message.messageId.uuidString.lowercased(), chatId: message.chatId.uuidString.lowercased(),
            authorId: message.authorId.uuidString.lowercased(), authorName: message.authorName, text: message.text,
            clientId: message.clientId, sentAt: message.sentAt
        ).carrying(message.media, links: links)
    }
}

/// Reads of `chats`, `chat_members`, `chat_messages`, and the access rule built on them.
struct ChatReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// Signs the links of the images messages carry.
    let links: ChatMediaLinks

    init(client: PostgresClient, logger: Logger, links: ChatMediaLinks) {
        self.client = client
        self.logger = logger
        self.links = links
    }

    /// With links signed by a key derived from the master key, the same on every gateway.
    init(host: ServiceHost, logger: Logger) {
        self.init(
            client: host.postgres, logger: logger, links: ChatMediaLinks(key: host.settings.masterKey.derivedKey(purpose: "hearth chat media links v1")))
    }

    /// The chat's household when `user` is one of its members and may still read the
    /// household's chats (`household_chat_access`: its users, and the coaches it works with now;
    /// one who left, was removed or whose coaching ended reads and writes it no more). Anyone
    /// else gets a 404, whether or not the chat exists: a 403 would confirm it does.
    func requireMember(_ user: UUID, of chatId: UUID) async throws -> UUID {
        let rows = try await client.query(
            """
            SELECT c.household_id FROM chats c JOIN chat_members m ON m.chat_id = c.chat_id
            JOIN household_chat_access() a ON a.household_id = c.household_id AND a.user_id = m.user_id
            WHERE c.chat_id = \(chatId) AND m.user_id = \(user)
            """, logger: logger)
        for try await household in rows.decode(UUID.self) { return household }
        throw APIError.notFound("chat")
    }

    /// Those among `ids` who may be in the household's chats (its users and current coaches),
    /// so a chat can only include them.
    func householdUsers(_ ids: [UUID], of householdId: UUID) async throws -> Set<UUID> {
        let rows = try await client.query(
            "SELECT user_id FROM household_chat_access() WHERE household_id = \(householdId) AND user_id = ANY(\(ids))", logger: logger)
        var found = Set<UUID>()
        for try await id in rows.decode(UUID.self) { found.insert(id) }
        return found
    }

    func displayName(of user: UUID) async throws -> String? {
        let rows = try await client.query("SELECT display_name FROM users WHERE user_id = \(user)", logger: logger)
        for try await name in rows.decode(String?.self) { return name }
        return nil
    }

    func message(_ messageId: UUID, in chatId: UUID) async throws -> ChatMessageView? {
        try await messages(
            query: """
                SELECT \(unescaped: Self.messageColumns) FROM chat_messages m
                WHERE m.message_id = \(messageId) AND m.chat_id = \(chatId)
                """
        ).first
    }

    /// Newest first, older than `before` when given.
    func messages(in chatId: UUID, before: UUID?, limit: Int) async throws -> [ChatMessageView] {
        if let before {
            return try await messages(
                query: """
                    SELECT \(unescaped: Self.messageColumns) FROM chat_messages m
                    WHERE m.chat_id = \(chatId) AND m.seq < (SELECT seq FROM chat_messages WHERE message_id = \(before) AND chat_id = \(chatId))
                    ORDER BY m.seq DESC LIMIT \(limit)
                    """)
        }
        return try await messages(
            query: """
                SELECT \(unescaped: Self.messageColumns) FROM chat_messages m
                WHERE m.chat_id = \(chatId) ORDER BY m.seq DESC LIMIT \(limit)
                """)
    }

    /// The thread around a message: up to `before` messages before it, the message, and up to
    /// `after` after it, oldest first; empty when the chat has no such message.
    func thread(around messageId: UUID, in chatId: UUID, before: Int, after: Int) async throws -> [ChatMessageView] {
        try await messages(
            query: """
                WITH focus AS (SELECT seq FROM chat_messages WHERE message_id = \(messageId) AND chat_id = \(chatId)),
                around AS (
                    (SELECT m.seq FROM chat_messages m, focus WHERE m.chat_id = \(chatId) AND m.seq <= focus.seq ORDER BY m.seq DESC LIMIT \(before + 1))
                    UNION ALL
                    (SELECT m.seq FROM chat_messages m, focus WHERE m.chat_id = \(chatId) AND m.seq > focus.seq ORDER BY m.seq LIMIT \(after)))
                SELECT \(unescaped: Self.messageColumns) FROM chat_messages m JOIN around a ON a.seq = m.seq
                WHERE m.chat_id = \(chatId) ORDER BY m.seq
                """)
    }

    /// A message's columns, with who (besides its author) has read up to it.
    private static let messageColumns = """
        m.message_id, m.chat_id, m.author_id, m.author_name, m.body, m.client_id, m.sent_at,
        ARRAY(SELECT r.user_id FROM chat_members r WHERE r.chat_id = m.chat_id AND r.read_up_to_seq >= m.seq AND r.user_id <> m.author_id
              ORDER BY r.user_id),
        m.media_id, m.media_type, m.media_size, m.media_width, m.media_height
        """

    static func media(_ id: UUID?, _ type: String?, _ size: Int?, _ width: Int?, _ height: Int?) -> ChatMedia? {
        guard let id, let type, let size, let width, let height else { return nil }
        return ChatMedia(mediaId: id, contentType: type, size: size, width: width, height: height)
    }

    private func messages(query: PostgresQuery) async throws -> [ChatMessageView] {
        let rows = try await client.query(query, logger: logger)
        var views: [ChatMessageView] = []
        for try await row in rows.decode((UUID, UUID, UUID, String, String, String, Date, [UUID], UUID?, String?, Int?, Int?, Int?).self) {
            views.append(
                ChatMessageView(
                    messageId: row.0.uuidString.lowercased(), chatId: row.1.uuidString.lowercased(), authorId: row.2.uuidString.lowercased(),
                    authorName: row.3, text: row.4, clientId: row.5, sentAt: row.6, readBy: row.7.map { $0.uuidString.lowercased() }
                ).carrying(Self.media(row.8, row.9, row.10, row.11, row.12), links: links))
        }
        return views
    }

    /// The chats `user` may read (a member, in a household they still belong to), newest activity
    /// first, after the chat `before` when given; `household` narrows them to one household.
    func chats(of user: UUID, household: UUID?, before: UUID?, limit: Int) async throws -> [ChatSummaryView] {
        let rows = try await client.query(
            """
            SELECT c.chat_id, c.household_id, c.title, c.last_activity_at,
                   (SELECT count(*) FROM chat_messages u
                    WHERE u.chat_id = c.chat_id AND u.seq > COALESCE(cm.read_up_to_seq, -1) AND u.author_id <> cm.user_id)::int8,
                   (SELECT json_agg(json_build_object('user_id', o.user_id, 'display_name', p.display_name) ORDER BY o.user_id)
                    FROM chat_members o JOIN household_chat_access() oa ON oa.user_id = o.user_id AND oa.household_id = c.household_id
                    LEFT JOIN users p ON p.user_id = o.user_id
                    WHERE o.chat_id = c.chat_id)::text,
                   lm.message_id, lm.author_id, lm.author_name, lm.body, lm.client_id, lm.sent_at,
                   lm.media_id, lm.media_type, lm.media_size, lm.media_width, lm.media_height
            FROM chat_members cm
            JOIN chats c ON c.chat_id = cm.chat_id
            JOIN household_chat_access() a ON a.user_id = cm.user_id AND a.household_id = c.household_id
            LEFT JOIN LATERAL (
                SELECT message_id, author_id, author_name, body, client_id, sent_at, media_id, media_type, media_size, media_width, media_height
                FROM chat_messages WHERE chat_id = c.chat_id ORDER BY seq DESC LIMIT 1) lm ON true
            WHERE cm.user_id = \(user)
              AND (\(household)::uuid IS NULL OR c.household_id = \(household))
              AND (\(before)::uuid IS NULL OR (c.last_activity_at, c.chat_id) < (SELECT b.last_activity_at, b.chat_id FROM chats b WHERE b.chat_id = \(before)))
            ORDER BY c.last_activity_at DESC, c.chat_id DESC
            LIMIT \(limit)
            """, logger: logger)
        struct StoredMember: Decodable {
            var user_id: UUID
            var display_name: String?
        }
        var chats: [ChatSummaryView] = []
        for try await row in rows.decode(
            (UUID, UUID, String?, Date, Int, String?, UUID?, UUID?, String?, String?, String?, Date?, UUID?, String?, Int?, Int?, Int?).self
        ) {
            let members = try row.5.map { try JSONDecoder().decode([StoredMember].self, from: Data($0.utf8)) } ?? []
            var last: ChatMessageView?
            if let id = row.6, let author = row.7, let name = row.8, let body = row.9, let clientId = row.10, let sentAt = row.11 {
                last = ChatMessageView(
                    messageId: id.uuidString.lowercased(), chatId: row.0.uuidString.lowercased(), authorId: author.uuidString.lowercased(),
                    authorName: name, text: body, clientId: clientId, sentAt: sentAt
                ).carrying(Self.media(row.12, row.13, row.14, row.15, row.16), links: links)
            }
            chats.append(
                ChatSummaryView(
                    chatId: row.0.uuidString.lowercased(), householdId: row.1.uuidString.lowercased(), title: row.2,
                    members: members.map { .init(userId: $0.user_id.uuidString.lowercased(), displayName: $0.display_name) },
                    lastMessage: last, unreadCount: row.4, lastActivityAt: row.3))
        }
        return chats
    }
}
