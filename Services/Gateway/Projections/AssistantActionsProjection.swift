import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// The assistant's proposed actions (`assistant_actions`) and the audit log of decisions on them
/// (`assistant_audit_log`), from the assistant topic. A decision applies only to an action still
/// proposed, so a redelivered or duplicate decision changes nothing. `user.erased` (users topic)
/// removes the actions of the households erased with the user and the actions the user asked for.
public struct AssistantActionsProjection: Projection {
    public let name = "assistant_actions"
    public let topics: [Topic] = [.assistant, .users]
    public let tables = ["assistant_actions", "assistant_audit_log"]
    /// Every type of the assistant topic this projection reads, and only `user.erased` of the
    /// users topic (registrations and profile updates are passed over undecoded).
    public let eventTypes: Set<String>? = [
        AssistantActionProposed.eventType, AssistantActionEdited.eventType, AssistantActionExecuted.eventType, AssistantActionRejected.eventType,
        UserErased.eventType,
    ]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for event in events {
            switch event.payload {
            case let proposed as AssistantActionProposedV2:
                let arguments = String(decoding: try encoder.encode(proposed.arguments), as: UTF8.self)
                let choice = try proposed.choice.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
                try await connection.query(
                    """
                    INSERT INTO assistant_actions (action_id, run_id, conversation_id, household_id, proposed_for, tool, arguments, summary,
                                                   proposed_at, expires_at, status, choice, proposed_arguments, proposed_summary)
                    VALUES (\(proposed.actionId), \(proposed.runId), \(proposed.conversationId), \(proposed.householdId), \(proposed.userId),
                            \(proposed.tool), \(arguments)::jsonb, \(proposed.summary), \(proposed.proposedAt), \(proposed.expiresAt), 'proposed',
                            \(choice)::jsonb, \(arguments)::jsonb, \(proposed.summary))
                    ON CONFLICT (action_id) DO NOTHING
                    """, logger: logger)
            case let edited as AssistantActionEdited:
                // Only an action still waiting for a decision changes; the choice is settled.
                let arguments = String(decoding: try encoder.encode(edited.arguments), as: UTF8.self)
                try await connection.query(
                    """
                    UPDATE assistant_actions SET arguments = \(arguments)::jsonb, summary = \(edited.summary), choice = NULL,
                        edited_by = \(edited.editedBy), edited_at = \(event.metadata.occurredAt)
                    WHERE action_id = \(edited.actionId) AND household_id = \(edited.householdId) AND status = 'proposed'
                    """, logger: logger)
            case let executed as AssistantActionExecuted:
                try await decide(
                    executed.actionId, household: executed.householdId, decision: "executed", by: executed.confirmedBy,
                    effect: (executed.effectType, executed.effectId), event: event, on: connection, logger: logger)
            case let rejected as AssistantActionRejected:
                try await decide(
                    rejected.actionId, household: rejected.householdId, decision: "rejected", by: rejected.rejectedBy,
                    effect: nil, event: event, on: connection, logger: logger)
            case let erased as UserErased:
                try await erase(erased, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    /// `user.erased`: both tables forget the households erased with the user; the actions
    /// proposed for the user (`proposed_for`: who asked the assistant) go in every household.
    /// The audit log of a household that stays is kept whole: it is the household's record of
    /// who decided what, and the user appears in it only as an id.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        if !erased.householdIds.isEmpty {
            try await connection.query("DELETE FROM assistant_audit_log WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
            try await connection.query("DELETE FROM assistant_actions WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
        }
        try await connection.query("DELETE FROM assistant_actions WHERE proposed_for = \(erased.userId)", logger: logger)
    }

    private func decide(
        _ actionId: UUID, household: UUID, decision: String, by member: UUID, effect: (String, UUID)?, event: ProjectedEvent,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let decidedAt = event.metadata.occurredAt
        try await connection.query(
            """
            WITH decided AS (
                UPDATE assistant_actions
                SET status = \(decision), decided_by = \(member), decided_at = \(decidedAt), effect_type = \(effect?.0), effect_id = \(effect?.1)
                WHERE action_id = \(actionId) AND household_id = \(household) AND status = 'proposed'
                RETURNING action_id, household_id, tool, summary, arguments, proposed_for, proposed_arguments, proposed_summary, edited_by
            )
            INSERT INTO assistant_audit_log (action_id, household_id, decision, tool, summary, arguments, proposed_for, decided_by, decided_at,
                                             effect_type, effect_id, event_id, proposed_arguments, proposed_summary, edited_by)
            SELECT action_id, household_id, \(decision), tool, summary, arguments, proposed_for, \(member), \(decidedAt),
                   \(effect?.0), \(effect?.1), \(event.metadata.id), proposed_arguments, proposed_summary, edited_by
            FROM decided
            ON CONFLICT (action_id) DO NOTHING
            """, logger: logger)
    }
}
