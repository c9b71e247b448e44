import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird

/// `POST /v1/assist/stream`, `GET /v1/assist/runs/{run_id}` and `GET /v1/assist/runs/{run_id}/events`.
struct AssistRoutes: Sendable {
    /// Subscribes, publishes and streams a plan run once this route has admitted it.
    let launcher: RunLauncher
    let households: AssistHouseholdReader
    let quota: MonthlyQuota
    let hub: RunEventHub
    let runs: RunReadModel
    let streamer: RunStreamer
    let recent: RecentRuns
    /// Each run stream is one of the user's open streams (`HEARTH_STREAMS_PER_USER`).
    let streams: OpenStreams
    let redactor = PIIRedactor()

    /// How long a request waits for the follower to be positioned (only right after start-up).
    static let followerWait = Duration.seconds(10)
    /// How long a freshly started run may take to appear in the read model.
    static let projectionWait = Duration.seconds(3)

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("assist/stream") { request, context in try await stream(request, context: context) }
        routes.get("assist/runs/:run_id") { request, context in try await run(request, context: context) }
        routes.get("assist/runs/:run_id/events") { request, context in try await events(request, context: context) }
    }

    // MARK: POST /v1/assist/stream

    func stream(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let received = ContinuousClock.now
        let today = CalendarDay(Date(), in: .gmt)
        let body = try await JSONRequestBody.decode(AssistStreamRequest.self, from: request, context: context).validated(today: today)
        let format = RunStreamFormat(accept: request.headers[.accept])
        let runId = EventIdentity.newId("assist_run")
        // Before the quota: a stream refused for the cap must not spend a run.
        let ticket = try streams.admit(user)
        // Independent round trips on the critical path, so side by side: the household read and
        // the quota's admission; once admitted, the run's data key (made on first use with a
        // synchronous commit, which would otherwise sit inside the publish) beside the rest of the read.
        async let householdRead = households.household(
            of: user, requested: body.householdId, header: request.headers[MembershipReadModel.householdHeader], on: body.startDate)
        let admission = try await quota.admit(user, today: today)
        let isAdmitted = if case .admitted = admission { true } else { false }
        async let runKey: Void = isAdmitted ? launcher.prepareKey(forRun: runId) : ()
        let household: AssistHousehold
        do {
            household = try await householdRead
        } catch {
            // No run after all: a unit the quota just counted is given back, the key made for it
            // destroyed.
            if isAdmitted {
                await quota.release(user, today: today)
                await runKey
                await launcher.discardKey(forRun: runId, logger: context.logger)
            }
            throw error
        }
        if case .exceeded(let used, let limit) = admission {
            context.logger.info("monthly quota exceeded", metadata: ["used": "\(used)", "quota": "\(limit)"])
            return quotaExceeded(runId: runId, used: used, quota: limit, today: today, format: format)
        }
        await runKey
        let admitted = ContinuousClock.now
        // Subscribe before publishing: the run's first events may come back within a millisecond.
        guard await waitUntilFollowing() else {
            await quota.release(user, today: today)
            await launcher.discardKey(forRun: runId, logger: context.logger)
            throw APIError(.serviceUnavailable, code: "not_ready", message: "the gateway is still starting; retry shortly")
        }
        let event = AssistRequested(
            runId: runId, userId: user, householdId: household.householdId, mode: body.mode,
            // PII never reaches Kafka: the goal is redacted before it is published.
            goal: redactor.redact(body.goal), days: body.days, startDate: body.startDate.isoDate,
            prefs: household.prefs, members: household.members)
        let response = try await launcher.start(event, runId: runId, user: user, today: today, format: format, ticket: ticket, context: context)
        context.logger.info("assist run requested", metadata: [
            "run_id": "\(runId.uuidString.lowercased())", "mode": "\(body.mode)",
            // Where the gateway's share of a run's latency goes: reads and quota, then Kafka.
            "admit_ms": "\(Self.milliseconds(admitted - received))", "publish_ms": "\(Self.milliseconds(ContinuousClock.now - admitted))",
        ])
        return response
    }

    /// The whole stream of a request over quota: `quota_exceeded`, then `done`. Nothing is
    /// published: the run never starts.
    private func quotaExceeded(runId: UUID, used: Int, quota: Int, today: CalendarDay, format: RunStreamFormat) -> Response {
        let reset = MonthlyQuota.resetDate(after: today).isoDate
        let message = "Monthly quota exceeded. You've used \(used)/\(quota) requests."
        let data = #"{"message":\#(Self.jsonString(message)),"quota":\#(quota),"reset_date":"\#(reset)","used":\#(used)}"#
        let runKey = runId.uuidString.lowercased()
        var buffer = format.frame(RunStreamEventText(seq: 1, event: "quota_exceeded", data: data), runId: runKey)
        var done = format.frame(RunStreamEventText(seq: 2, event: "done", data: #"{"elapsed_ms":0,"outcome":"quota_exceeded"}"#, elapsedMs: 0), runId: runKey)
        buffer.writeBuffer(&done)
        var headers = format.headers
        headers[HTTPField.Name("X-Run-Id")!] = runKey
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    private func waitUntilFollowing() async -> Bool {
        await hub.waitUntilFollowing(timeout: Self.followerWait)
    }

    static func milliseconds(_ duration: Duration) -> String {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.2f", ms)
    }

    static func jsonString(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    // MARK: GET /v1/assist/runs/{run_id}

    func run(_ request: Request, context: HearthRequestContext) async throws -> RunView {
        let user = try context.authenticatedUser()
        let runId = try Self.runId(context)
        let wait = recent.isRecent(runId, of: user) ? Self.projectionWait : .zero
        guard let run = try await readOnceProjected(within: wait, { try await runs.run(runId) }), run.userId == user else {
            throw APIError.notFound("run")
        }
        return run
    }

    // MARK: GET /v1/assist/runs/{run_id}/events

    func events(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let runId = try Self.runId(context)
        let format = RunStreamFormat(accept: request.headers[.accept])
        let after = try Self.lastEventId(request)
        let wait = recent.isRecent(runId, of: user) ? Self.projectionWait : .zero
        guard let head = try await readOnceProjected(within: wait, { try await runs.head(of: runId) }), head.owner == user else {
            throw APIError.notFound("run")
        }
        // Before any more reads: a stream turned away for the cap costs nothing.
        let ticket = try streams.admit(user)
        var backlog = try await runs.events(of: runId, from: after + 1)
        var subscription: RunSubscription?
        // A finished run the client has every event of has nothing more to come: waiting for
        // its `done` would hold the stream open on heartbeats until the timeout.
        let hasEverything = head.isFinished && after >= head.lastSeq
        if backlog.last?.event != "done" && !hasEverything {
            // Still going (or not fully projected): subscribe, then read the backlog again, so
            // whatever is published meanwhile is either in it or in the subscription.
            guard await waitUntilFollowing() else {
                throw APIError(.serviceUnavailable, code: "not_ready", message: "the gateway is still starting; retry shortly")
            }
            subscription = hub.subscribe(runId)
            backlog = try await runs.events(of: runId, from: after + 1)
            if backlog.last?.event == "done" {
                subscription?.finish()
                subscription = nil
            }
        }
        let streamer = streamer
        let live = subscription
        let stored = backlog
        return Response(status: .ok, headers: format.headers, body: ResponseBody { writer in
            defer { ticket.hold() }
            try await streamer.stream(runId: runId, subscription: live, backlog: stored, after: after, format: format, writer: &writer)
            try await writer.finish(nil)
        })
    }

    static func runId(_ context: HearthRequestContext) throws -> UUID {
        guard let id = context.parameters.get("run_id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("run_id", "the run id in the path must be a UUID")
        }
        return id
    }

    /// `Last-Event-ID`: the seq of the last event the client has; absent means from the start.
    static func lastEventId(_ request: Request) throws -> Int {
        guard let name = HTTPField.Name("Last-Event-ID"), let text = request.headers[name]?.trimmingCharacters(in: .whitespaces),
              !text.isEmpty
        else { return 0 }
        // Seqs are 32-bit in the read model; a larger number cannot be one (and `after + 1` on
        // Int.max would trap).
        guard let seq = Int(text), (0...Int(Int32.max)).contains(seq) else {
            throw APIError.invalid("Last-Event-ID", "Last-Event-ID must be the seq of an event (a whole number from 0 to 2147483647)")
        }
        return seq
    }
}
