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

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case runId = "run_id"
        case conversationId = "conversation_id"
        case tool, arguments, summary, status
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

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case decision, tool, summary, arguments
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
            SELECT action_id, run_id, household_id, proposed_for, tool, arguments::text, status, expires_at
            FROM assistant_actions WHERE action_id = \(actionId)
            """, logger: logger)
        for try await (id, run, household, proposedFor, tool, arguments, status, expires) in rows.decode(
            (UUID, UUID, UUID, UUID, String, String, String, Date).self)
        {
            return StoredAssistantAction(
                actionId: id, runId: run, householdId: household, proposedFor: proposedFor, tool: tool,
                arguments: try decoder.decode(JSONValue.self, from: Data(arguments.utf8)), status: status, expiresAt: expires)
        }
        return nil
    }

    /// The household's actions, newest first; `status` filters (`pending` and `expired` are
    /// told apart by the clock).
    func actions(of householdId: UUID, status: String?, limit: Int, now: Date) async throws -> [AssistantActionView] {
        let rows = try await client.query(
            """
            SELECT action_id, run_id, conversation_id, tool, arguments_text, summary, shown, proposed_for, proposed_at, expires_at,
                   decided_by, decided_at, effect_type, effect_id
            FROM (SELECT *, arguments::text AS arguments_text,
                         CASE WHEN status = 'proposed' AND expires_at <= \(now) THEN 'expired'
                              WHEN status = 'proposed' THEN 'pending' ELSE status END AS shown
                  FROM assistant_actions WHERE household_id = \(householdId)) AS a
            WHERE \(status)::text IS NULL OR shown = \(status)
            ORDER BY proposed_at DESC, action_id LIMIT \(limit)
            """, logger: logger)
        var views: [AssistantActionView] = []
        for try await row in rows.decode(
            (UUID, UUID, UUID, String, String, String, String, UUID, Date, Date, UUID?, Date?, String?, UUID?).self)
        {
            views.append(AssistantActionView(
                actionId: row.0.uuidString.lowercased(), runId: row.1.uuidString.lowercased(), conversationId: row.2.uuidString.lowercased(),
                tool: row.3, arguments: try decoder.decode(JSONValue.self, from: Data(row.4.utf8)), summary: row.5, status: row.6,
                proposedFor: row.7.uuidString.lowercased(), proposedAt: row.8, expiresAt: row.9, decidedBy: row.10?.uuidString.lowercased(),
                decidedAt: row.11, effectType: row.12, effectId: row.13?.uuidString.lowercased()))
        }
        return views
    }

    func audit(of householdId: UUID, limit: Int) async throws -> [AssistantAuditEntry] {
        let rows = try await client.query(
            """
            SELECT a.action_id, a.decision, a.tool, a.summary, a.arguments::text, a.proposed_for, a.decided_by, u.display_name,
                   a.decided_at, a.effect_type, a.effect_id
            FROM assistant_audit_log a LEFT JOIN users u ON u.user_id = a.decided_by
            WHERE a.household_id = \(householdId)
            ORDER BY a.decided_at DESC, a.action_id LIMIT \(limit)
            """, logger: logger)
        var entries: [AssistantAuditEntry] = []
        for try await row in rows.decode((UUID, String, String, String, String, UUID, UUID, String?, Date, String?, UUID?).self) {
            entries.append(AssistantAuditEntry(
                actionId: row.0.uuidString.lowercased(), decision: row.1, tool: row.2, summary: row.3,
                arguments: try decoder.decode(JSONValue.self, from: Data(row.4.utf8)), proposedFor: row.5.uuidString.lowercased(),
                decidedBy: row.6.uuidString.lowercased(), decidedByName: row.7, decidedAt: row.8, effectType: row.9,
                effectId: row.10?.uuidString.lowercased()))
        }
        return entries
    }
}
