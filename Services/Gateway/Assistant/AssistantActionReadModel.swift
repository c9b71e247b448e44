import Foundation
import HearthEvents
import HearthRuntime
import Hummingbird
import Logging
import PostgresNIO

/// A proposed action as the API shows it. `status` is `pending`, `expired` (past `expires_at`
/// without a decision), `executed` or `rejected`.
struct AssistantActionView: ResponseEncodable, Sendable {
    var actionId: String
    var runId: String
    var conversationId: String
    var tool: String
    var arguments: JSONValue
    var summary: String
    var status: String
    var proposedFor: String
    var proposedAt: Date
    var expiresAt: Date
    var decidedBy: String?
    var decidedAt: Date?
    var effectType: String?
    var effectId: String?
    /// Set while a name matches several people: pick one with `PATCH` before confirming.
    var choice: JSONValue?
    /// The proposal as first made, when a member has edited it since.
    var proposedArguments: JSONValue?
    var editedBy: String?

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case runId = "run_id"
        case conversationId = "conversation_id"
        case tool, arguments, summary, status, choice
        case proposedArguments = "proposed_arguments"
        case editedBy = "edited_by"
        case proposedFor = "proposed_for"
        case proposedAt = "proposed_at"
        case expiresAt = "expires_at"
        case decidedBy = "decided_by"
        case decidedAt = "decided_at"
        case effectType = "effect_type"
        case effectId = "effect_id"
    }
}

/// One decision of the audit log.
struct AssistantAuditEntry: ResponseEncodable, Sendable {
    var actionId: String
    var decision: String
    var tool: String
    var summary: String
    var arguments: JSONValue
    var proposedFor: String
    var decidedBy: String
    var decidedByName: String?
    var decidedAt: Date
    var effectType: String?
    var effectId: String?
    /// What the assistant first proposed, when a member edited it before the decision.
    var proposedArguments: JSONValue?
    var proposedSummary: String?
    var editedBy: String?

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case decision, tool, summary, arguments
        case proposedArguments = "proposed_arguments"
        case proposedSummary = "proposed_summary"
        case editedBy = "edited_by"
        case proposedFor = "proposed_for"
        case decidedBy = "decided_by"
        case decidedByName = "decided_by_name"
        case decidedAt = "decided_at"
        case effectType = "effect_type"
        case effectId = "effect_id"
    }
}

/// A stored action with what the executor needs.
struct StoredAssistantAction: Sendable {
    var actionId: UUID
    var runId: UUID
    var householdId: UUID
    var proposedFor: UUID
    var tool: String
    var arguments: JSONValue
    var status: String
    var expiresAt: Date
    var choice: ActionChoice?
}

/// Reads of `assistant_actions` and `assistant_audit_log`.
struct AssistantActionReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let decoder = JSONDecoder()

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func action(_ actionId: UUID) async throws -> StoredAssistantAction? {
        let rows = try await client.query(
            """
            SELECT action_id, run_id, household_id, proposed_for, tool, arguments::text, status, expires_at, choice::text
            FROM assistant_actions WHERE action_id = \(actionId)
            """, logger: logger)
        for try await (id, run, household, proposedFor, tool, arguments, status, expires, choice) in rows.decode(
            (UUID, UUID, UUID, UUID, String, String, String, Date, String?).self)
        {
            return StoredAssistantAction(
                actionId: id, runId: run, householdId: household, proposedFor: proposedFor, tool: tool,
                arguments: try decoder.decode(JSONValue.self, from: Data(arguments.utf8)), status: status, expiresAt: expires,
                choice: try choice.map { try decoder.decode(ActionChoice.self, from: Data($0.utf8)) })
        }
        return nil
    }

    /// The household's actions, newest first; `status` filters (`pending` and `expired` are
    /// told apart by the clock).
    func actions(of householdId: UUID, status: String?, limit: Int, now: Date) async throws -> [AssistantActionView] {
        let rows = try await client.query(
            """
            SELECT action_id, run_id, conversation_id, tool, arguments_text, summary, shown, proposed_for, proposed_at, expires_at,
                   decided_by, decided_at, effect_type, effect_id, choice_text,
                   CASE WHEN edited_by IS NULL THEN NULL ELSE proposed_arguments_text END, edited_by
            FROM (SELECT *, arguments::text AS arguments_text, choice::text AS choice_text, proposed_arguments::text AS proposed_arguments_text,
                         CASE WHEN status = 'proposed' AND expires_at <= \(now) THEN 'expired'
                              WHEN status = 'proposed' THEN 'pending' ELSE status END AS shown
                  FROM assistant_actions WHERE household_id = \(householdId)) AS a
            WHERE \(status)::text IS NULL OR shown = \(status)
            ORDER BY proposed_at DESC, action_id LIMIT \(limit)
            """, logger: logger)
        var views: [AssistantActionView] = []
        for try await row in rows.decode(
            (UUID, UUID, UUID, String, String, String, String, UUID, Date, Date, UUID?, Date?, String?, UUID?, String?, String?, UUID?).self)
        {
            views.append(AssistantActionView(
                actionId: row.0.uuidString.lowercased(), runId: row.1.uuidString.lowercased(), conversationId: row.2.uuidString.lowercased(),
                tool: row.3, arguments: try decoder.decode(JSONValue.self, from: Data(row.4.utf8)), summary: row.5, status: row.6,
                proposedFor: row.7.uuidString.lowercased(), proposedAt: row.8, expiresAt: row.9, decidedBy: row.10?.uuidString.lowercased(),
                decidedAt: row.11, effectType: row.12, effectId: row.13?.uuidString.lowercased(),
                choice: try row.14.map { try decoder.decode(JSONValue.self, from: Data($0.utf8)) },
                proposedArguments: try row.15.map { try decoder.decode(JSONValue.self, from: Data($0.utf8)) },
                editedBy: row.16?.uuidString.lowercased()))
        }
        return views
    }

    func audit(of householdId: UUID, limit: Int) async throws -> [AssistantAuditEntry] {
        let rows = try await client.query(
            """
            SELECT a.action_id, a.decision, a.tool, a.summary, a.arguments::text, a.proposed_for, a.decided_by, u.display_name,
                   a.decided_at, a.effect_type, a.effect_id, a.proposed_arguments::text, a.proposed_summary, a.edited_by
            FROM assistant_audit_log a LEFT JOIN users u ON u.user_id = a.decided_by
            WHERE a.household_id = \(householdId)
            ORDER BY a.decided_at DESC, a.action_id LIMIT \(limit)
            """, logger: logger)
        var entries: [AssistantAuditEntry] = []
        for try await row in rows.decode(
            (UUID, String, String, String, String, UUID, UUID, String?, Date, String?, UUID?, String?, String?, UUID?).self
        ) {
            entries.append(AssistantAuditEntry(
                actionId: row.0.uuidString.lowercased(), decision: row.1, tool: row.2, summary: row.3,
                arguments: try decoder.decode(JSONValue.self, from: Data(row.4.utf8)), proposedFor: row.5.uuidString.lowercased(),
                decidedBy: row.6.uuidString.lowercased(), decidedByName: row.7, decidedAt: row.8, effectType: row.9,
                effectId: row.10?.uuidString.lowercased(),
                proposedArguments: try row.11.map { try decoder.decode(JSONValue.self, from: Data($0.utf8)) }, proposedSummary: row.12,
                editedBy: row.13?.uuidString.lowercased()))
        }
        return entries
    }
}
