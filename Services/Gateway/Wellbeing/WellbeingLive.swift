import Foundation
import HearthDomain
import HearthEvents
import HearthKafka
import HearthPrivacy
import HearthRuntime
import HearthStore
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Fans a user's new tips, badges and weekly reflections out to their live connections.
///
/// Like the chat hub, every gateway reads every partition of `wellbeing` itself, without a
/// consumer group, from the high watermark at start-up: a live connection only wants what happens
/// while it is open (the routes serve the past). The topic is keyed by user, so only the keys of
/// users connected here are decoded.
final class WellbeingLiveHub: Service, Sendable {
    private let follower: LiveTopicFollower
    private let subscribers = StreamSubscribers<String, String>()
    private let following = Atomic<Bool>(false)
    private let keys: DataKeyRing
    private let tips: TipCatalogue

    static let liveTypes: Set<String> = [WellbeingTipPublished.eventType, WellbeingBadgeEarned.eventType, WellbeingReflectionWritten.eventType]

    init(bootstrapServers: String, keys: DataKeyRing, tips: TipCatalogue, logger: Logger) {
        self.keys = keys
        self.tips = tips
        follower = LiveTopicFollower(topic: .wellbeing, bootstrapServers: bootstrapServers, fetchWaitMs: 50, errorBackoffMs: 50, logger: logger)
    }

    var isFollowing: Bool { following.load(ordering: .acquiring) }

    /// The user's live messages (JSON text) until the stream is dropped.
    func subscribe(_ user: UUID) -> AsyncStream<String> {
        subscribers.add(user.uuidString.lowercased(), bufferingPolicy: .bufferingNewest(200)).0
    }

    func run() async throws {
        await follower.run(
            positioned: { [self] in following.store($0, ordering: .releasing) },
            handle: { [self] message in await dispatch(message) })
        subscribers.finishAll()
    }

    private func dispatch(_ message: KafkaMessage) async {
        guard let keyBytes = message.key else { return }
        let waiting = subscribers.waiting(on: String(decoding: keyBytes, as: UTF8.self))
        guard !waiting.isEmpty, let hint = EventHeaders.typeHint(of: message), Self.liveTypes.contains(hint.type),
              let value = await keys.openPatiently(message.value),
              case .event(let decoded)? = try? EventCatalogue.hearth.decode(Data(value), hint: hint),
              let text = Self.message(for: decoded.payload, tips: tips)
        else { return }
        for continuation in waiting { continuation.yield(text) }
    }

    /// `{"type": "tip" | "badge" | "reflection", ...}`, or nil for anything else.
    static func message(for payload: any EventPayload, tips: TipCatalogue) -> String? {
        var fields: [String: JSONValue]
        switch payload {
        case let published as WellbeingTipPublished:
            guard let tip = tips.tip(id: published.tipId) else { return nil }
            fields = [
                "type": .string("tip"), "id": .string(published.feedId.uuidString.lowercased()), "tip_id": .string(tip.id), "title": .string(tip.title),
                "body": .string(tip.body), "reason": .string(published.reason), "at": .string(Timestamp.format(published.at)),
            ]
        case let badge as WellbeingBadgeEarned:
            let title = WellbeingProgress.rules.first { $0.id == badge.badgeId }?.title ?? badge.badgeId
            fields = ["type": .string("badge"), "badge_id": .string(badge.badgeId), "title": .string(title), "earned_at": .string(Timestamp.format(badge.earnedAt))]
        case let reflection as WellbeingReflectionWritten:
            guard let recap = reflection.recap else { return nil }
            fields = ["type": .string("reflection"), "week": .string(reflection.week), "recap": .string(recap), "written_by": .string(reflection.writtenBy)]
        default:
            return nil
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(JSONValue.object(fields))).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// `GET /v1/wellbeing/live`: a WebSocket that pushes the caller's new tips, badges and reflections
/// as JSON text messages. Authenticated like the API (`Authorization: Bearer`, or `?access_token=`
/// for clients that cannot set headers on an upgrade: a 401 before any upgrade otherwise),
/// counted against the user's open streams, and pinged by the server every 30 seconds so a dead
/// peer is noticed.
struct WellbeingLiveRoutes: Sendable {
    let hub: WellbeingLiveHub
    let tokens: HearthTokens
    let standing: AccountStanding
    let streams: OpenStreams

    static func make(host: ServiceHost, tokens: HearthTokens, standing: AccountStanding, streams: OpenStreams) throws -> WellbeingLiveRoutes {
        let hub = WellbeingLiveHub(bootstrapServers: host.settings.kafkaBootstrap, keys: host.keys, tips: try TipCatalogue.bundled(), logger: host.logger)
        host.readiness.addCheck("follower:wellbeing") { hub.isFollowing }
        return WellbeingLiveRoutes(hub: hub, tokens: tokens, standing: standing, streams: streams)
    }

    func register(on router: Router<BasicWebSocketRequestContext>) {
        router.ws("v1/wellbeing/live") { request, _ in
            guard await authenticate(request) != nil else { throw BearerAuthentication.unauthorized("a valid bearer token is required") }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let user = await authenticate(context.request) else { return }
            let ticket: OpenStreams.Ticket
            do { ticket = try streams.admit(user) } catch {
                try await outbound.close(.policyViolation, reason: "too many open streams")
                return
            }
            defer { ticket.hold() }
            let messages = hub.subscribe(user)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The client sends nothing we use; its close (or the connection's end) ends both.
                group.addTask { for try await _ in inbound {} }
                group.addTask {
                    for await text in messages { try await outbound.write(.text(text)) }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    /// The user of a valid token whose account may use the API, else nil.
    func authenticate(_ request: Request) async -> UUID? {
        var token: String?
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" { token = BearerAuthentication.trimmed(parts[1]) }
        } else {
            token = request.uri.queryParameters.get("access_token").map { String($0) }
        }
        guard let token, let verified = try? await tokens.verify(token) else { return nil }
        guard (try? await standing.check(verified.userId, issuedAt: verified.issuedAt, method: "GET", path: request.uri.path)) != nil else { return nil }
        return verified.userId
    }
}
