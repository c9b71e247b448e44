import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO

/// The activity feed of seed 001 (`/v1/activities/…`), for any signed-in caller (an anonymous
/// device account included): the feed with ETags and incremental sync, and public submissions
/// with their moderation status. Limits are per device (the caller's account), not per address:
/// feed reads a minute and submissions a day, each a 429 with `Retry-After`.
struct ActivityRoutes: Sendable {
    let feed: ActivityFeed
    let publisher: EventPublisher
    let client: PostgresClient
    let consistency: ReadConsistency
    let allowance: ActivityDailyAllowance
    let submissionsPerDay: Int
    let feedPolls: FixedWindowRateLimit
    let ledger: RateLimitLedger
    let ideas: ActivityIdeaWriter
    let ideasPerDay: Int
    let consents: ConsentReadModel

    static let readProjections: [Topic: [String]] = [.activities: [ActivitiesProjection().name]]

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        let group = routes.group("activities")
        group.get("feed") { request, context in try await readFeed(request, context: context) }
        group.post("submissions") { request, context in
            EditedResponse(status: .accepted, response: try await submit(request, context: context))
        }
        group.get("submissions/{id}") { request, context in try await submission(request, context: context) }
        group.post("llm/ideas") { request, context in try await writeIdeas(request, context: context) }
    }

    // MARK: Ideas

    /// Only with the caller's consent to cloud AI on record (403 `consent_required`): the seed's
    /// client asks before it calls. Counted per device and day.
    func writeIdeas(_ request: Request, context: HearthRequestContext) async throws -> ActivityIdeaWriter.Ideas {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(ActivityIdeasRequest.self, from: request, context: context).validated()
        try await consistency.wait(for: try consistency.pendingRead(in: request, projections: ConsentRoutes.readProjections, writtenBy: "PUT /v1/me/consents"))
        guard try await consents.consents(of: user, context: context).cloudAI else {
            throw APIError(.forbidden, code: "consent_required", message: "ideas need your consent to cloud AI: PUT /v1/me/consents {\"cloud_ai\": true}")
        }
        try await allowance.admit(.idea, for: user, limit: ideasPerDay)
        let written = try await ideas.ideas(for: body, user: user)
        context.logger.info("activity ideas written", metadata: ["by": "\(written.writtenBy)", "ideas": "\(written.ideas.count)"])
        return written
    }

    // MARK: Feed

    func readFeed(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        try countFeedPoll(by: user)
        let query = try ActivityFeedQuery(queryPairs: request.uri.queryParameters.map { (String($0.0), String($0.1)) }, route: "the feed")
        let pending = try consistency.pendingRead(in: request, projections: Self.readProjections, writtenBy: "an activity write")
        try await consistency.wait(for: pending)
        let answer = try await feed.answer(query, bypassing: pending != nil)
        var headers: HTTPFields = [.eTag: "\"\(answer.etag)\"", .cacheControl: "private, no-cache"]
        if let ifNoneMatch = request.headers[.ifNoneMatch], answer.isMatched(by: ifNoneMatch) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(answer.body.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// Feed reads per device and minute, counted with the gateway's other windows (shared across
    /// instances by the rate-limit janitor).
    private func countFeedPoll(by user: UUID) throws {
        let now = Date()
        let counts = ledger.hit(["activity-feed:\(user.uuidString.lowercased())"], windowStart: feedPolls.windowStart(containing: now))
        let decision = feedPolls.decision(count: counts.values.first ?? 1, now: now)
        guard decision.allowed else {
            throw RateLimitMiddleware.refusal(
                decision, message: "at most \(feedPolls.limit) feed reads a minute from one device; retry in \(decision.resetAfterSeconds) s")
        }
    }

    // MARK: Submissions

    struct Submitted: ResponseEncodable {
        @LowercaseID var submissionId: UUID
        let status: String
        let position: String

        enum CodingKeys: String, CodingKey {
            case submissionId = "submission_id"
            case status, position
        }
    }

    func submit(_ request: Request, context: HearthRequestContext) async throws -> Submitted {
        let user = try context.authenticatedUser()
        let content = try await JSONRequestBody.decode(ActivitySubmissionRequest.self, from: request, context: context).validated()
        try await allowance.admit(.submission, for: user, limit: submissionsPerDay)
        let event = ActivitySubmitted(submissionId: EventIdentity.newId("activity-submission"), authorId: user, content: content)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        context.logger.info("activity submitted", metadata: ["submission_id": "\(event.submissionId)"])
        return Submitted(submissionId: event.submissionId, status: "pending", position: position.description)
    }

    struct SubmissionStatus: ResponseEncodable {
        @LowercaseID var submissionId: UUID
        let status: String
        let reason: String?
        /// What moderation says to the author; empty while it is pending.
        let notes: [String]
        let activityId: String?
        let nearestActivityId: String?
        let submittedAt: Date
        let decidedAt: Date?

        enum CodingKeys: String, CodingKey {
            case submissionId = "submission_id"
            case status, reason, notes
            case activityId = "activity_id"
            case nearestActivityId = "nearest_activity_id"
            case submittedAt = "submitted_at"
            case decidedAt = "decided_at"
        }
    }

    /// Its author's only: anyone else's submission is as absent as none.
    func submission(_ request: Request, context: HearthRequestContext) async throws -> SubmissionStatus {
        let user = try context.authenticatedUser()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("submission_id", "the submission id in the path must be a UUID")
        }
        let pending = try consistency.pendingRead(in: request, projections: Self.readProjections, writtenBy: "POST /v1/activities/submissions")
        try await consistency.wait(for: pending)
        let rows = try await client.query(
            """
            SELECT status, reason, note, activity_id, nearest_activity_id, submitted_at, decided_at
            FROM activity_submissions WHERE submission_id = \(id) AND author_id = \(user)
            """, logger: context.logger)
        for try await (status, reason, note, activityId, nearest, submittedAt, decidedAt)
            in rows.decode((String, String?, String?, String?, String?, Date, Date?).self)
        {
            return SubmissionStatus(
                submissionId: id, status: status, reason: reason, notes: note.map { [$0] } ?? [], activityId: activityId, nearestActivityId: nearest,
                submittedAt: submittedAt, decidedAt: decidedAt)
        }
        throw APIError.notFound("submission")
    }
}
