import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Logging
import Hummingbird
import PostgresNIO

/// The human half of moderation (`/v1/admin/…`, admins only): the submissions the pipeline held
/// (or any status), approving or rejecting one, and withdrawing an activity from the feed. Each
/// decision is an event (`activity.moderated` with the admin as moderator, `activity.withdrawn`),
/// projected like the pipeline's.
struct ActivityModerationRoutes: Sendable {
    let publisher: EventPublisher
    let client: PostgresClient
    let consistency: ReadConsistency

    static let statuses = ["held", "pending", "approved", "rejected"]

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("moderation") { request, context in try await queue(request, context: context) }
        routes.post("moderation/{id}/approve") { request, context in try await decide(request, context: context, approve: true) }
        routes.post("moderation/{id}/reject") { request, context in try await decide(request, context: context, approve: false) }
        routes.post("activities/{id}/withdraw") { request, context in try await withdraw(request, context: context) }
    }

    struct Queue: ResponseEncodable {
        struct Item: Encodable {
            @LowercaseID var submissionId: UUID
            let status: String
            let reason: String?
            let note: String?
            let content: ActivityContent?
            let nearestActivityId: String?
            let nearestTitle: String?
            let similarity: Double?
            let submittedAt: Date

            enum CodingKeys: String, CodingKey {
                case submissionId = "submission_id"
                case status, reason, note, content
                case nearestActivityId = "nearest_activity_id"
                case nearestTitle = "nearest_title"
                case similarity
                case submittedAt = "submitted_at"
            }
        }
        let submissions: [Item]
    }

    /// Oldest first, 200 at most: `?status=` (default `held`, what waits for a person).
    func queue(_ request: Request, context: HearthRequestContext) async throws -> Queue {
        let status = request.uri.queryParameters.get("status") ?? "held"
        guard Self.statuses.contains(status) else { throw APIError.invalid("status", "status must be one of \(Self.statuses.joined(separator: ", "))") }
        let pending = try consistency.pendingRead(in: request, projections: ActivityRoutes.readProjections, writtenBy: "an activity write")
        try await consistency.wait(for: pending)
        let rows = try await client.query(
            """
            SELECT s.submission_id, s.status, s.reason, s.note, s.content::text, s.nearest_activity_id, a.title, s.similarity, s.submitted_at
            FROM activity_submissions s LEFT JOIN activities a ON a.activity_id = s.nearest_activity_id
            WHERE s.status = \(status)
            ORDER BY s.submitted_at, s.submission_id
            LIMIT 200
            """, logger: context.logger)
        var items: [Queue.Item] = []
        for try await (id, status, reason, note, content, nearest, nearestTitle, similarity, submittedAt)
            in rows.decode((UUID, String, String?, String?, String?, String?, String?, Double?, Date).self)
        {
            items.append(Queue.Item(
                submissionId: id, status: status, reason: reason, note: note,
                content: try content.map { try JSONDecoder().decode(ActivityContent.self, from: Data($0.utf8)) }, nearestActivityId: nearest,
                nearestTitle: nearestTitle, similarity: similarity, submittedAt: submittedAt))
        }
        return Queue(submissions: items)
    }

    struct DecisionRequest: Decodable {
        var note: String?
        var reason: String?
    }

    struct Decided: ResponseEncodable {
        @LowercaseID var submissionId: UUID
        let decision: String
        let activityId: String?
        let position: String

        enum CodingKeys: String, CodingKey {
            case submissionId = "submission_id"
            case decision
            case activityId = "activity_id"
            case position
        }
    }

    /// Approves or rejects a submission that is pending or held; 409 once it is decided.
    func decide(_ request: Request, context: HearthRequestContext, approve: Bool) async throws -> Decided {
        let admin = try context.authenticatedUser()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("submission_id", "the submission id in the path must be a UUID")
        }
        let body = try await JSONRequestBody.decodeIfPresent(DecisionRequest.self, from: request, context: context) ?? DecisionRequest()
        return try await decide(id, approve: approve, reason: body.reason, note: body.note, by: admin, correlationId: context.correlationId, logger: context.logger)
    }

    /// The decision itself, from the JSON route or the console's form: `activity.moderated` with
    /// the admin as moderator.
    func decide(_ id: UUID, approve: Bool, reason given: String?, note: String?, by admin: UUID, correlationId: String, logger: Logger) async throws -> Decided {
        let note = note?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let note, note.count > 500 { throw APIError.invalid("note", "note must be at most 500 characters") }
        var reason: ActivityRefusalReason?
        if !approve {
            guard let given = given.flatMap(ActivityRefusalReason.init(rawValue:)) else {
                throw APIError.invalid("reason", "reason must be one of \(ActivityRefusalReason.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            reason = given
        }
        let rows = try await client.query(
            "SELECT author_id, status FROM activity_submissions WHERE submission_id = \(id) AND content IS NOT NULL", logger: logger)
        var found: (UUID, String)?
        for try await row in rows.decode((UUID, String).self) { found = row }
        guard let (author, status) = found else { throw APIError.notFound("submission") }
        guard status == "pending" || status == "held" else {
            throw APIError(.conflict, code: "already_decided", message: "the submission was already \(status)")
        }
        let decision = approve ? "approved" : "rejected"
        let moderated = ActivityModerated(
            submissionId: id, authorId: author, decision: decision, reason: reason?.rawValue,
            note: note.flatMap { $0.isEmpty ? nil : $0 } ?? (approve ? "Approved by a moderator: it is in the feed now." : "A moderator decided it can't go into the feed."),
            activityId: approve ? ActivityContent.communityId(of: id) : nil, nearestActivityId: nil, similarity: nil,
            moderator: admin.uuidString.lowercased())
        let position = try await publisher.publish(moderated, correlationId: correlationId)
        logger.info("activity submission decided by an admin", metadata: ["submission_id": "\(id)", "decision": "\(decision)", "admin_id": "\(admin)"])
        return Decided(submissionId: id, decision: decision, activityId: moderated.activityId, position: position.description)
    }

    struct WithdrawRequest: Decodable {
        var reason: String
    }

    struct Withdrawn: ResponseEncodable {
        let activityId: String
        let position: String

        enum CodingKeys: String, CodingKey {
            case activityId = "activity_id"
            case position
        }
    }

    /// Takes a live activity out of the feed; clients syncing with `since` get a tombstone.
    func withdraw(_ request: Request, context: HearthRequestContext) async throws -> Withdrawn {
        let admin = try context.authenticatedUser()
        let id = try context.parameters.require("id")
        let body = try await JSONRequestBody.decode(WithdrawRequest.self, from: request, context: context)
        let reason = body.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...500).contains(reason.count) else { throw APIError.invalid("reason", "reason must be 1 to 500 characters") }
        let rows = try await client.query("SELECT 1 FROM activities WHERE activity_id = \(id) AND NOT withdrawn", logger: context.logger)
        var live = false
        for try await _ in rows.decode(Int32.self) { live = true }
        guard live else { throw APIError.notFound("activity") }
        let position = try await publisher.publish(ActivityWithdrawn(activityId: id, reason: reason, withdrawnBy: admin), correlationId: context.correlationId)
        return Withdrawn(activityId: id, position: position.description)
    }
}
