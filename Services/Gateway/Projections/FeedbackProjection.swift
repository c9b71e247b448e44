import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `feedback`: every `feedback.given`, one row each, written in one statement per batch (between
/// two erasures), less what `user.erased` (users topic) removes.
public struct FeedbackProjection: Projection {
    public let name = "feedback"
    public let topics: [Topic] = [.feedback, .users]
    public let tables = ["feedback"]
    /// `feedback.given`, and only `user.erased` of the users topic (registrations and profile
    /// updates are passed over undecoded).
    public let eventTypes: Set<String>? = [FeedbackGiven.eventType, UserErased.eventType]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        var pending: [(FeedbackGiven, ProjectedEvent)] = []
        for event in events {
            if let erased = event.payload as? UserErased {
                // The feedback collected so far is written first, so the erasure removes what came
                // before it, as applying one by one would.
                try await insert(pending, on: connection, logger: logger)
                pending = []
                try await erase(erased, on: connection, logger: logger)
            } else if let given = event.payload as? FeedbackGiven {
                pending.append((given, event))
            }
        }
        try await insert(pending, on: connection, logger: logger)
    }

    /// `user.erased`: the feedback the user gave, and all feedback in the households erased with
    /// them.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM feedback WHERE user_id = \(erased.userId)", logger: logger)
        if !erased.householdIds.isEmpty {
            try await connection.query("DELETE FROM feedback WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
        }
    }

    /// Inserts the feedback in one statement.
    private func insert(_ pending: [(FeedbackGiven, ProjectedEvent)], on connection: PostgresConnection, logger: Logger) async throws {
        guard !pending.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var ids: [UUID] = [], runs: [String] = [], users: [UUID] = [], households: [String] = [], signals: [String] = []
        var comments: [String] = [], hasComment: [Bool] = [], payloads: [String] = [], hasPayload: [Bool] = []
        var times: [String] = [], eventIds: [UUID] = []
        for (given, event) in pending {
            ids.append(given.feedbackId)
            runs.append(given.runId)
            users.append(given.userId)
            households.append(given.householdId?.uuidString ?? "")
            signals.append(given.signal)
            comments.append(given.comment ?? "")
            hasComment.append(given.comment != nil)
            payloads.append(try given.payload.map { String(decoding: try encoder.encode($0), as: UTF8.self) } ?? "")
            hasPayload.append(given.payload != nil)
            times.append(Timestamp.format(event.metadata.occurredAt))
            eventIds.append(event.metadata.id)
        }
        guard !ids.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO feedback (feedback_id, run_id, user_id, household_id, signal, comment, payload, given_at, event_id)
            SELECT id, run_id, user_id, NULLIF(household_id, '')::uuid, signal, CASE WHEN has_comment THEN comment END,
                   CASE WHEN has_payload THEN payload::jsonb END, given::timestamptz, event_id
            FROM unnest(\(ids)::uuid[], \(runs)::text[], \(users)::uuid[], \(households)::text[], \(signals)::text[],
                        \(comments)::text[], \(hasComment)::bool[], \(payloads)::text[], \(hasPayload)::bool[],
                        \(times)::text[], \(eventIds)::uuid[])
                 AS v(id, run_id, user_id, household_id, signal, comment, has_comment, payload, has_payload, given, event_id)
            ON CONFLICT (feedback_id) DO NOTHING
            """, logger: logger)
    }
}
