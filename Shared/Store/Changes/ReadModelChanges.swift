import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Announces that a read model's rows changed, on Postgres' `hearth_read_model_changed` channel
/// with the read model's name as the payload. Postgres delivers a notification only when (and
/// if) the announcing transaction commits, so a listener never hears of a change it cannot read
/// yet, and a rolled-back batch announces nothing.
public enum ReadModelChanges {
    public static let channel = "hearth_read_model_changed"

    /// Inside the transaction that changes `readModel`'s rows. Several announcements of one read
    /// model in one transaction reach listeners as one (Postgres folds equal notifications).
    public static func announce(_ readModel: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(readModel))", logger: logger)
    }
}

/// How many changes of one read model this process has heard of. A cache stamps what it stores
/// with the generation it read under and drops it when the generation moves on. `current` is nil
/// while changes could go unheard (no listening connection): nothing may be cached then.
public final class ReadModelGeneration: Sendable {
    private struct State {
        var value: UInt64 = 0
        var listening = false
    }

    public let readModel: String
    private let state = Mutex(State())

    public init(readModel: String) {
        self.readModel = readModel
    }

    /// The generation to stamp reads with, or nil while changes cannot be heard.
    public var current: UInt64? {
        state.withLock { $0.listening ? $0.value : nil }
    }

    /// A change was announced.
    public func advance() {
        state.withLock { $0.value &+= 1 }
    }

    /// The listener is (again) on the channel. Whatever changed while it was not is unknown, so
    /// everything read before counts as stale.
    public func startListening() {
        state.withLock {
            $0.value &+= 1
            $0.listening = true
        }
    }

    /// The listening connection is gone: until it is back, no generation can be trusted.
    public func stopListening() {
        state.withLock {
            $0.value &+= 1
            $0.listening = false
        }
    }
}

/// One process's ear on `ReadModelChanges.channel`: a single pooled connection that LISTENs and
/// advances the generation of each read model announced. Runs as a service; when the connection
/// fails it marks every generation unusable, and listens again `retryDelay` later.
public final class ReadModelChangeFeed: Service, Sendable {
    private struct State {
        var generations: [String: ReadModelGeneration] = [:]
        var listening = false
    }

    private let client: PostgresClient
    private let logger: Logger
    private let retryDelay: Duration
    private let state = Mutex(State())
    private let heard = Counter(label: "hearth_read_model_changes_heard_total")

    public init(client: PostgresClient, logger: Logger, retryDelay: Duration = .seconds(1)) {
        self.client = client
        self.logger = logger
        self.retryDelay = retryDelay
    }

    /// The generation of `readModel` (one object per name, created on first use).
    public func generation(of readModel: String) -> ReadModelGeneration {
        state.withLock { state in
            if let generation = state.generations[readModel] { return generation }
            let generation = ReadModelGeneration(readModel: readModel)
            if state.listening { generation.startListening() }
            state.generations[readModel] = generation
            return generation
        }
    }

    /// Whether anything asked for a generation: a process that caches nothing needs no listener.
    public var isNeeded: Bool {
        state.withLock { !$0.generations.isEmpty }
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await listen()
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                logger.warning(
                    "read model change listener lost its connection; caches are off until it is back",
                    metadata: ["error": "\(String(reflecting: error))"])
            }
            setListening(false)
            try? await Task.sleep(for: retryDelay)
        }
        setListening(false)
    }

    private func setListening(_ listening: Bool) {
        state.withLock { state in
            state.listening = listening
            for generation in state.generations.values {
                if listening { generation.startListening() } else { generation.stopListening() }
            }
        }
    }

    private func listen() async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: ReadModelChanges.channel) { notifications in
                // LISTEN is in effect from here: every later commit is heard.
                self.setListening(true)
                self.logger.debug("listening for read model changes")
                for try await notification in notifications.cancelOnGracefulShutdown() {
                    self.heard.increment()
                    self.state.withLock { $0.generations[notification.payload] }?.advance()
                }
            }
        }
    }
}
