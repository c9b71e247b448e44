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
            guard let tipId = published.tipId, let tip = tips.tip(id: tipId) else { return nil }
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
/// as JSON text messages. Authenticated like the API (`Authorization: Bearer` on the upgrade
/// request; never a token in the URL, where proxies log it), counted against the user's open
/// streams, pinged by the server every 30 seconds so a dead peer is noticed, and closed within a
/// minute of its token expiring or its account being deleted.
///
/// An upgrade this route does not accept goes on to the API's router as a plain request, whose
/// `GET /v1/wellbeing/live` answers why: 401 without a valid token, 429 past the stream cap, and
/// 426 (Upgrade Required) otherwise.
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
            guard let user = await authenticate(request), (try? streams.checkRoom(user)) != nil else { return .dontUpgrade }
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
                // A token that expires, or an account being deleted, ends the socket within a minute.
                group.addTask {
                    while await authenticate(context.request) == user { try await Task.sleep(for: .seconds(60)) }
                    try await outbound.close(.policyViolation, reason: "signed out")
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    /// The user of a valid token whose account may use the API, else nil.
    func authenticate(_ request: Request) async -> UUID? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", let verified = try? await tokens.verify(BearerAuthentication.trimmed(parts[1])) else {
            return nil
        }
        guard (try? await standing.check(verified, method: "GET", path: request.uri.path)) != nil else { return nil }
        return verified.userId
    }

    /// The plain request an upgrade was not made for (the API's router, behind its authentication).
    func registerRefusals(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("wellbeing/live") { _, context -> Response in
            try streams.checkRoom(try context.authenticatedUser())
            throw APIError(.upgradeRequired, code: "websocket_required", message: "open this route as a WebSocket (Upgrade: websocket)",
                           headers: [.upgrade: "websocket"])
        }
    }
}
