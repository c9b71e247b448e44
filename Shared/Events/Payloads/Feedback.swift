import Foundation

/// `feedback.given` v1: a user's verdict on one assistant run. Keyed by the run, so all feedback
/// on a run stays in order.
public struct FeedbackGiven: EventPayload {
    public static let eventType = "feedback.given"
    public static let version = 1
    public static let topic = Topic.feedback
    public static let privacy = PayloadPrivacy(
        personal: ["comment": .user("user_id"), "payload": .user("user_id")],
        notPersonal: ["feedback_id", "run_id", "user_id", "household_id", "signal"])

    public var feedbackId: UUID
    public var runId: String
    public var userId: UUID
    public var householdId: UUID?
    /// `up`, `down` or `edit`.
    public var signal: String
    public var comment: String?
    /// Whatever the client attached (an edited plan, say), kept as given.
    public var payload: JSONValue?

    public var aggregateKey: String { runId }

    enum CodingKeys: String, CodingKey {
        case feedbackId = "feedback_id"
        case runId = "run_id"
        case userId = "user_id"
        case householdId = "household_id"
        case signal, comment, payload
    }

    public init(feedbackId: UUID, runId: String, userId: UUID, householdId: UUID?, signal: String, comment: String?, payload: JSONValue?) {
        self.feedbackId = feedbackId
        self.runId = runId
        self.userId = userId
        self.householdId = householdId
        self.signal = signal
        self.comment = comment
        self.payload = payload
    }
}
