import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import HearthStore
import Logging
import ServiceLifecycle
import Synchronization

/// One event of a run as the gateway streams it: `data` is JSON text, exactly as the orchestrator
/// wrote it (and as the `assist_run_events` read model stores it, so live and replayed streams match).
struct RunStreamEventText: Sendable, Equatable {
    var seq: Int
    var event: String
    var data: String
    var elapsedMs: Int?
}

/// Fans `assist.events` out to the HTTP streams waiting for each run.
///
/// Every gateway instance reads every partition itself, without a consumer group (a group would
/// hand each instance only some runs), from the high watermark at start-up onwards: a stream
/// subscribes before its request is published, so whatever the run emits is after that point.
/// Events of runs nobody here is waiting for are dropped after a glance at the key.
final class RunEventHub: Service, Sendable {
    private let follower: LiveTopicFollower
    private let subscribers = StreamSubscribers<String, RunStreamItem>()
    private let following = Atomic<Bool>(false)

    /// Opens each run's sealed event data (sealed with the run's key).
    private let keys: DataKeyRing

    init(bootstrapServers: String, fetchWaitMs: Int, keys: DataKeyRing, logger: Logger) {
        self.keys = keys
        follower = LiveTopicFollower(
            topic: .assistEvents, bootstrapServers: bootstrapServers, fetchWaitMs: fetchWaitMs, errorBackoffMs: 10, logger: logger)
    }

    /// True once the follower is positioned: events published from now on reach subscribers.
    var isFollowing: Bool { following.load(ordering: .acquiring) }

    /// Waits (only right after start-up) until the follower is positioned; false after `timeout`.
    func waitUntilFollowing(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isFollowing {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Starts buffering the run's events. Subscribe before the request is published; finish the
    /// subscription (or drop it) when the stream ends.
    func subscribe(_ runId: UUID) -> RunSubscription {
        let (stream, continuation) = subscribers.add(runId.uuidString.lowercased(), bufferingPolicy: .unbounded)
        return RunSubscription(stream: stream, continuation: continuation)
    }

    func run() async throws {
        await follower.run(
            positioned: { [self] in following.store($0, ordering: .releasing) },
            handle: { [self] message in await Self.dispatch(message, to: subscribers, keys: keys) })
        subscribers.finishAll()
    }

    /// Events of runs nobody here is waiting for are dropped after a glance at the key.
    private static func dispatch(_ message: KafkaMessage, to subscribers: StreamSubscribers<String, RunStreamItem>, keys: DataKeyRing) async {
        guard let keyBytes = message.key else { return }
        let waiting = subscribers.waiting(on: String(decoding: keyBytes, as: UTF8.self))
        guard !waiting.isEmpty else { return }
        let received = EventTracing.spanStart()
        guard let event = await RunEventDispatcher.decode(message, keys: keys) else { return }
        for continuation in waiting { continuation.yield(.event(event)) }
        // The hop back: the run's event reached the streams waiting for it here.
        EventTracing.recordHandled(message, operation: "deliver \(message.topic)", started: received)
    }
}

/// Turns `assist.run_event` messages into stream text, reading the envelope's JSON without
/// decoding the event's data (a whole plan, passed on as the orchestrator wrote it).
private enum RunEventDispatcher {
    static func decode(_ message: KafkaMessage, keys: DataKeyRing) async -> RunStreamEventText? {
        // Other event types of the topic (run started/completed) are for the read models.
        guard let hint = EventHeaders.typeHint(of: message), hint.type == AssistRunEvent.eventType, hint.version == AssistRunEvent.version,
              let value = await keys.openPatiently(message.value),
              let event = AssistRunEventText(envelope: value)
        else { return nil }
        return RunStreamEventText(seq: event.seq, event: event.event, data: event.data, elapsedMs: event.elapsedMs)
    }
}

/// What a stream waits on: the run's events, and heartbeat ticks.
enum RunStreamItem: Sendable {
    case event(RunStreamEventText)
    case heartbeat
}

/// A stream's registration with the hub. Finishing it (or dropping every reference to its
/// stream) unregisters it.
struct RunSubscription: Sendable {
    let stream: AsyncStream<RunStreamItem>
    let continuation: AsyncStream<RunStreamItem>.Continuation

    func finish() { continuation.finish() }
}
