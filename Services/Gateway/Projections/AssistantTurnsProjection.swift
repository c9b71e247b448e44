import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `assistant_turns`: every message to the assistant, by conversation, so that the next message
/// carries the conversation so far and `GET /v1/assistant/conversations` can list them. A run
/// that ages out (`assist.run_expired`: its key is destroyed) takes its turn with it; an erased
/// user (or household) takes theirs.
public struct AssistantTurnsProjection: Projection {
    public let name = "assistant_turns"
    public let topics: [Topic] = [.assistRequests, .assistEvents, .users]
    public let tables = ["assistant_turns"]
    public let eventTypes: Set<String>? = [AssistantMessageRequested.eventType, AssistRunExpired.eventType, UserErased.eventType]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let message as AssistantMessageRequestedV3:
                try await connection.query(
                    """
                    INSERT INTO assistant_turns (run_id, conversation_id, user_id, household_id, question, asked_at)
                    VALUES (\(message.runId), \(message.conversationId), \(message.userId), \(message.householdId), \(message.text),
                            \(message.requestedAt))
                    ON CONFLICT (run_id) DO NOTHING
                    """, logger: logger)
            case let expired as AssistRunExpired:
                try await connection.query("DELETE FROM assistant_turns WHERE run_id = \(expired.runId)", logger: logger)
            case let erased as UserErased:
                try await connection.query(
                    "DELETE FROM assistant_turns WHERE user_id = \(erased.userId) OR household_id = ANY(\(erased.householdIds)::uuid[])",
                    logger: logger)
            default:
                continue
            }
        }
    }
}
