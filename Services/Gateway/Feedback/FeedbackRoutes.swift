import Foundation
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird
import PostgresNIO

/// Body of `POST /v1/feedback`.
struct FeedbackRequest: Decodable {
    enum Signal: String { case up, down, edit }

    /// Run ids are strings; clients that count runs send numbers, which are taken as their digits.
    struct RunId: Decodable {
        let value: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                value = String(number)
            } else {
                value = try container.decode(String.self)
            }
        }
    }

    var runId: RunId
    var signal: String
    var comment: String?
    var payload: JSONValue?

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case signal, comment, payload
    }

    static let maxCommentLength = 4000
    /// The payload rides in the event: it must stay far below Kafka's message size limit (1 MB).
    static let maxPayloadBytes = 16_384

    struct Validated {
        var runId: String
        var signal: Signal
        var comment: String?
        var payload: JSONValue?
    }

    func validated() throws -> Validated {
        let run = runId.value.trimmingCharacters(in: .whitespaces)
        guard (1...128).contains(run.unicodeScalars.count) else { throw APIError.invalid("run_id", "run_id must be 1 to 128 characters") }
        guard let signal = Signal(rawValue: signal) else { throw APIError.invalid("signal", "signal must be up, down or edit") }
        let comment = comment?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let comment, comment.unicodeScalars.count > Self.maxCommentLength {
            throw APIError.invalid("comment", "comment must be at most \(Self.maxCommentLength) characters")
        }
        if let payload, (try? JSONEncoder().encode(payload).count).map({ $0 > Self.maxPayloadBytes }) ?? true {
            throw APIError.invalid("payload", "payload must be at most \(Self.maxPayloadBytes) bytes as JSON")
        }
        return Validated(runId: run, signal: signal, comment: comment?.isEmpty == true ? nil : comment, payload: payload)
    }
}

/// `POST /v1/feedback`: a thumbs up, a thumbs down or an edit of an assistant run.
struct FeedbackRoutes: Sendable {
    let publisher: EventPublisher
    let membership: MembershipReadModel
    let client: PostgresClient

    struct Accepted: ResponseEncodable {
        @LowercaseID var feedbackId: UUID
        let position: String

        enum CodingKeys: String, CodingKey {
            case feedbackId = "feedback_id"
            case position
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("feedback") { request, context in
            EditedResponse(status: .accepted, response: try await give(request, context: context))
        }
    }

    func give(_ request: Request, context: HearthRequestContext) async throws -> Accepted {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(FeedbackRequest.self, from: request, context: context).validated()
        // Feedback on a Hearth run is its owner's to give: another user's run is as absent as none.
        // (Run ids of the seed's clients, which are not Hearth's, are taken as they come.)
        if let run = UUID(uuidString: body.runId) {
            for try await owner in try await client.query("SELECT user_id FROM agent_runs WHERE run_id = \(run)", logger: context.logger)
                .decode(UUID.self) where owner != user {
                throw APIError.notFound("run")
            }
        }
        let event = FeedbackGiven(
            feedbackId: EventIdentity.newId("feedback"), runId: body.runId, userId: user, householdId: try await membership.household(of: user, for: request, required: false),
            signal: body.signal.rawValue, comment: body.comment, payload: body.payload)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        return Accepted(feedbackId: event.feedbackId, position: position.description)
    }
}
