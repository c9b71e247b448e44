import Foundation
import HearthEvents
import Logging
import PostgresNIO
import ServiceLifecycle

/// Typing and presence in chats, fanned out across gateways through Postgres `NOTIFY` on
/// `hearth_chat_signals`, never through Kafka: a signal matters for a few seconds, must not be
/// replayed, archived or kept for ever, and losing one costs nothing (the next keystroke or
/// heartbeat says it again). Postgres is already every gateway's shared store, so this needs no
/// other component; notifications are delivered to every listening gateway, at most once.
///
/// Who watches which chat is kept in `chat_stream_presence` (a row per open stream, refreshed at
/// each heartbeat): presence on connect is read from it, and the notifier reads it so that a
/// member watching a chat gets no push for its messages.
struct ChatSignals: Sendable {
    static let channel = "hearth_chat_signals"
    /// How long a typing signal holds unless repeated.
    static let typingSeconds = 5

    struct Signal: Codable, Sendable, Equatable {
        /// `typing` or `presence`.
        var kind: String
        var chatId: UUID
        var userId: UUID
        var displayName: String?
        /// For presence: whether the user now watches the chat.
        var online: Bool?
        /// For typing: until when.
        var until: Date?

        enum CodingKeys: String, CodingKey {
            case kind
            case chatId = "chat_id"
            case userId = "user_id"
            case displayName = "display_name"
            case online, until
        }

        /// Ids in lowercase, as every id the API writes (the stream frames are this encoding).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(chatId.uuidString.lowercased(), forKey: .chatId)
            try container.encode(userId.uuidString.lowercased(), forKey: .userId)
            try container.encodeIfPresent(displayName, forKey: .displayName)
            try container.encodeIfPresent(online, forKey: .online)
            try container.encodeIfPresent(until, forKey: .until)
        }
    }

    let client: PostgresClient
    let logger: Logger

    func send(_ signal: Signal) async throws {
        let payload = String(decoding: try JSONEncoder.hearth().encode(signal), as: UTF8.self)
        try await client.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
    }

    /// A stream opened: its row, alive for `ttl` unless refreshed.
    func opened(connection: UUID, chat: UUID, user: UUID, ttl: Duration) async throws {
        try await client.query(
            """
            INSERT INTO chat_stream_presence (connection_id, chat_id, user_id, expires_at)
            VALUES (\(connection), \(chat), \(user), now() + make_interval(secs => \(Double(ttl.components.seconds))))
            """, logger: logger)
    }

    func refreshed(connection: UUID, ttl: Duration) async throws {
        try await client.query(
            """
            UPDATE chat_stream_presence SET expires_at = now() + make_interval(secs => \(Double(ttl.components.seconds)))
            WHERE connection_id = \(connection)
            """, logger: logger)
    }

    /// A stream closed. Answers whether the user still watches the chat on another stream.
    func closed(connection: UUID, chat: UUID, user: UUID) async throws -> Bool {
        try await client.query("DELETE FROM chat_stream_presence WHERE connection_id = \(connection)", logger: logger)
        return try await watching(chat).contains(user)
    }

    /// The users watching the chat now.
    func watching(_ chat: UUID) async throws -> Set<UUID> {
        let rows = try await client.query(
            "SELECT DISTINCT user_id FROM chat_stream_presence WHERE chat_id = \(chat) AND expires_at > now()", logger: logger)
        var users = Set<UUID>()
        for try await user in rows.decode(UUID.self) { users.insert(user) }
        return users
    }

    /// Drops rows of streams whose gateway died without closing them.
    func sweep() async throws {
        try await client.query("DELETE FROM chat_stream_presence WHERE expires_at < now() - interval '1 minute'", logger: logger)
    }
}

/// Listens on `ChatSignals.channel` and hands each signal to the streams of its chat on this
/// gateway. Reconnects after a lost connection; signals sent meanwhile are lost, by design.
final class ChatSignalListener: Service, Sendable {
    private let client: PostgresClient
    private let hub: ChatStreamHub
    private let signals: ChatSignals
    private let logger: Logger

    init(client: PostgresClient, hub: ChatStreamHub, signals: ChatSignals, logger: Logger) {
        self.client = client
        self.hub = hub
        self.signals = signals
        self.logger = logger
    }

    func run() async throws {
        let decoder = JSONDecoder.hearth()
        var lastSweep = ContinuousClock.now
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: ChatSignals.channel) { notifications in
                        for try await notification in notifications.cancelOnGracefulShutdown() {
                            guard let signal = try? decoder.decode(ChatSignals.Signal.self, from: Data(notification.payload.utf8)) else { continue }
                            self.hub.deliver(signal)
                            if ContinuousClock.now - lastSweep > .seconds(60) {
                                lastSweep = ContinuousClock.now
                                try? await self.signals.sweep()
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.warning("chat signal listener lost its connection", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
