import HearthEvents
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird

/// How the gateway keeps reads consistent with writes.
///
/// - Reads a client makes after its own write: the write answers the event's `position`; the
///   client sends it back as `X-Consistency-Token` and the read waits until the read model has
///   applied it (up to 5 s, then 503).
/// - Writes that change who may see what (creating a household, accepting an invite, creating an
///   invite, a first sign-in): the gateway itself waits until its projections have applied the
///   event before answering, so the very next request passes authorization on any gateway
///   instance, with or without a token.
struct ReadConsistency: Sendable {
    static let header = HTTPField.Name("X-Consistency-Token")!

    /// A position a read must wait for, and the projections that must have applied it.
    struct PendingRead: Sendable {
        let position: EventPosition
        let projections: [String]
    }

    let waiter: ConsistencyWaiter

    /// The request's consistency token, checked but not yet waited for, so that a malformed
    /// token is a 400 before authorization and the wait happens only for authorized reads.
    /// `projections` says, per topic a token may name, which projections must have applied it.
    func pendingRead(in request: Request, projections: [Topic: [String]], writtenBy: String) throws -> PendingRead? {
        guard let token = request.headers[Self.header] else { return nil }
        // A partition the topic does not have can never be reached: a 400 now, not a 503 in 5 s.
        guard let position = EventPosition(token: token),
              let (topic, needed) = projections.first(where: { $0.key.name == position.topic }).map({ ($0.key, $0.value) }),
              position.partition < topic.partitions
        else {
            throw APIError.invalid("X-Consistency-Token", "X-Consistency-Token must be a position returned by \(writtenBy)")
        }
        return PendingRead(position: position, projections: needed)
    }

    func wait(for pending: PendingRead?) async throws {
        guard let pending else { return }
        // Most tokens are applied within milliseconds. One that is not yet may be past the end of
        // its partition, which no write returned: a 400 then, not a 503 after the full wait.
        if try await waiter.wait(for: pending.position, projections: pending.projections, within: .milliseconds(50)) { return }
        if try await waiter.isBeyondEnd(pending.position) {
            throw APIError.invalid("X-Consistency-Token", "X-Consistency-Token names a position that was never written")
        }
        guard try await waiter.wait(for: pending.position, projections: pending.projections) else {
            throw APIError(.serviceUnavailable, code: "consistency_timeout",
                           message: "the read model has not reached position \(pending.position) within 5 s; retry shortly")
        }
    }

    /// Waits until `projections` applied a write of this request; 503 when they do not in time
    /// (the write itself is done, and retrying it is safe).
    func awaitApplied(_ position: EventPosition, projections: [String]) async throws {
        guard try await waiter.wait(for: position, projections: projections) else {
            throw APIError(.serviceUnavailable, code: "consistency_timeout",
                           message: "the change was accepted but is not visible yet (position \(position)); retry shortly")
        }
    }
}

/// The gateway's projections by name, as consistency waits refer to them.
enum GatewayProjection {
    static let households = "households"
    static let householdMembers = "household_members"
    static let users = "users"
    static let exportRequests = "export_requests"
    static let feedback = "feedback"
    static let coaching = "coaching"
    static let activities = "activities"
}
