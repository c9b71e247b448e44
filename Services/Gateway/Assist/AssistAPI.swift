import Foundation
import HearthKafka
import HearthRuntime
import HearthStore
import Hummingbird
import ServiceLifecycle

/// What the gateway reads for assist runs (part of `GatewaySettings`): the monthly quota, the
/// `assist.events` follower's fetch wait, the request producer's linger, and the SSE stream's idle
/// timeout and heartbeat.
struct AssistSettings: Sendable {
    var monthlyQuota: Int
    var fetchWaitMs: Int
    var lingerMs: Double
    var streamIdleTimeout: Duration
    var heartbeatInterval: Duration

    static func load(from service: ServiceSettings) throws -> AssistSettings {
        let environment = service.environment
        return AssistSettings(
            monthlyQuota: try environment.int("HEARTH_MONTHLY_QUOTA", default: 10, range: 0...1_000_000),
            fetchWaitMs: try environment.int("HEARTH_ASSIST_FETCH_WAIT_MS", default: 1, range: 0...5_000),
            lingerMs: try environment.decimal("HEARTH_ASSIST_LINGER_MS", default: 0, range: 0...1_000),
            streamIdleTimeout: .seconds(try environment.int("HEARTH_ASSIST_STREAM_IDLE_TIMEOUT_S", default: 300, range: 1...86_400)),
            heartbeatInterval: .seconds(try environment.int("HEARTH_ASSIST_HEARTBEAT_S", default: 15, range: 1...3_600)))
    }
}

/// The gateway's assist slice wired together: the request producer, the `assist.events`
/// follower, and the assist, assistant, usage and admin-usage routes (the assistant's messages
/// are runs too, streamed through the same follower).
struct AssistAPI: Sendable {
    let routes: AssistRoutes
    let assistant: AssistantRoutes
    let usage: UsageRoutes
    /// Starts runs for routes of other features (a child's pediatrician summary).
    let launcher: RunLauncher
    /// Run beside the HTTP server; the producer is listed first so that it stops last.
    let services: [any Service]

    static func make(
        host: ServiceHost, settings: AssistSettings, admins: Set<UUID>, membership: MembershipReadModel, consistency: ReadConsistency,
        streams: OpenStreams
    ) throws -> AssistAPI {
        let logger = host.logger
        // Its own producer: a request is one message the stream waits on, so the shared
        // producer's 2 ms batching linger would sit inside every run's latency.
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                bootstrapServers: host.settings.kafkaBootstrap, clientId: "hearth-gateway-assist", lingerMs: settings.lingerMs),
            logger: logger)
        let hub = RunEventHub(bootstrapServers: host.settings.kafkaBootstrap, fetchWaitMs: settings.fetchWaitMs, keys: host.keys, logger: logger)
        host.readiness.addCheck("follower:assist.events") { hub.isFollowing }
        let runs = RunReadModel(client: host.postgres, logger: logger)
        let quota = MonthlyQuota(client: host.postgres, limit: settings.monthlyQuota, logger: logger)
        logger.info("assist configured", metadata: ["monthly_quota": "\(settings.monthlyQuota)", "fetch_wait_ms": "\(settings.fetchWaitMs)"])
        let requests = EventPublisher(producer: producer, source: host.settings.serviceName, keys: host.keys)
        let recent = RecentRuns()
        let streamer = RunStreamer(
            runs: runs, idleTimeout: settings.streamIdleTimeout, heartbeatInterval: settings.heartbeatInterval, logger: logger)
        let launcher = RunLauncher(
            requests: requests, keys: host.keys, hub: hub, streamer: streamer, quota: quota, recent: recent, streams: streams)
        return AssistAPI(
            routes: AssistRoutes(
                launcher: launcher, households: AssistHouseholdReader(client: host.postgres, logger: logger),
                quota: quota, hub: hub, runs: runs, streamer: streamer, recent: recent, streams: streams),
            assistant: AssistantRoutes(
                context: AssistantContextReader(client: host.postgres, logger: logger),
                actions: AssistantActionReadModel(client: host.postgres, logger: logger),
                conversations: AssistantConversationReadModel(client: host.postgres, logger: logger),
                executor: AssistantActionExecutor(
                    publisher: host.publisher, chats: ChatReadModel(host: host, logger: logger), client: host.postgres, logger: logger),
                membership: membership, chats: ChatReadModel(host: host, logger: logger), consistency: consistency, launcher: launcher),
            usage: UsageRoutes(usage: UsageReadModel(client: host.postgres, logger: logger), quota: quota, admins: admins),
            launcher: launcher,
            services: [producer, hub])
    }
}
