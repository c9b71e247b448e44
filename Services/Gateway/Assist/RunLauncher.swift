import Foundation
import HearthDomain
import HearthEvents
import HearthPrivacy
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird
import Logging

/// Starts a run for a route other than a plan (an assistant message, a child's pediatrician
/// summary): take one of the user's open streams (`HEARTH_STREAMS_PER_USER`, 429 past it), wait
/// until the `assist.events` follower runs, take a unit of the monthly quota,
/// subscribe before publishing (the run's first events may come back within a millisecond),
/// publish the request, and stream the run back as SSE or NDJSON.
struct RunLauncher: Sendable {
    let requests: EventPublisher
    /// The runs' data keys: made ahead of the request (`prepareKey`), destroyed when the run
    /// does not start after all (`discardKey`).
    let keys: DataKeyRing
    let hub: RunEventHub
    let streamer: RunStreamer
    let quota: MonthlyQuota
    let recent: RecentRuns
    let streams: OpenStreams

    func launch<P: EventPayload>(
        _ event: P, runId: UUID, user: UUID, request: Request, context: HearthRequestContext, headers extra: HTTPFields = [:]
    ) async throws -> Response {
        let format = RunStreamFormat(accept: request.headers[.accept])
        // Before the quota: a stream refused for the cap must not spend a run.
        let ticket = try streams.admit(user)
        guard await hub.waitUntilFollowing(timeout: AssistRoutes.followerWait) else {
            throw APIError(.serviceUnavailable, code: "not_ready", message: "the gateway is still starting; retry shortly")
        }
        let today = CalendarDay(Date(), in: .gmt)
        if case .exceeded(let used, let limit) = try await quota.admit(user, today: today) {
            throw APIError(
                .tooManyRequests, code: "quota_exceeded", message: "the monthly assistant quota is used up (\(used) of \(limit))",
                headers: [.retryAfter: String(MonthlyQuota.secondsToNextMonth(after: Date()))])
        }
        return try await start(event, runId: runId, user: user, today: today, format: format, ticket: ticket, context: context, headers: extra)
    }

    /// Makes (or loads) the data key of an admitted run ahead of publishing its request, which
    /// seals the goal with it. A failure is left for the publish to meet and report.
    func prepareKey(forRun runId: UUID) async {
        _ = try? await keys.sealingKey(for: KeySubject.run(runId))
    }

    /// Destroys the key `prepareKey` made for a run refused before its request was sent (its
    /// household refused, the follower not ready): no key outlives a run that never was. A
    /// failure is only logged: nothing was sealed with the key.
    func discardKey(forRun runId: UUID, logger: Logger) async {
        do {
            _ = try await keys.destroy(subjects: [KeySubject.run(runId)], because: "run.not_started")
        } catch {
            logger.warning("cannot destroy the key of a run that did not start", metadata: ["error": "\(error)"])
        }
    }

    /// The part every run shares once it is admitted (a stream place held, a quota unit taken on
    /// `today`, the follower running): subscribe before publishing — the run's first events may
    /// come back within a millisecond — publish the request (giving the unit back if that fails),
    /// and stream the run back, holding the place until the stream ends.
    func start<P: EventPayload>(
        _ event: P, runId: UUID, user: UUID, today: CalendarDay, format: RunStreamFormat, ticket: OpenStreams.Ticket, context: HearthRequestContext,
        headers extra: HTTPFields = [:]
    ) async throws -> Response {
        let subscription = hub.subscribe(runId)
        recent.admitted(runId, for: user)
        do {
            try await requests.publish(event, correlationId: context.correlationId)
        } catch {
            subscription.finish()
            await quota.release(user, today: today)
            // The key stays: a send that timed out may still have reached Kafka, and the
            // orchestrator would then open the request with it.
            context.logger.error("cannot publish a run request", metadata: ["type": "\(P.eventType)", "error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "unavailable", message: "runs cannot start right now; retry shortly")
        }
        var headers = format.headers
        headers[HTTPField.Name("X-Run-Id")!] = runId.uuidString.lowercased()
        headers.append(contentsOf: extra)
        let streamer = streamer
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer { ticket.hold() }
            try await streamer.stream(runId: runId, subscription: subscription, backlog: [], after: 0, format: format, writer: &writer)
            try await writer.finish(nil)
        })
    }
}
