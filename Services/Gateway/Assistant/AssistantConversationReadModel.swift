import Foundation
import HearthEvents
import Logging
import PostgresNIO

/// One conversation with the assistant, as `GET /v1/assistant/conversations` lists it.
struct ConversationSummaryView: Encodable, Sendable {
    @LowercaseID var conversationId: UUID
    @LowercaseID var householdId: UUID
    var turns: Int
    var startedAt: Date
    var lastAskedAt: Date
    var lastQuestion: String

    enum CodingKeys: String, CodingKey {
        case conversationId = "conversation_id"
        case householdId = "household_id"
        case turns
        case startedAt = "started_at"
        case lastAskedAt = "last_asked_at"
        case lastQuestion = "last_question"
    }
}

/// One turn: the question, and the run's answer once it has one.
struct ConversationTurnView: Encodable, Sendable {
    @LowercaseID var runId: UUID
    var question: String
    var answer: String?
    /// The run's state: `running`, `succeeded`, `refused` or `failed` (nil before the run is seen).
    var state: String?
    var askedAt: Date

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case question, answer, state
        case askedAt = "asked_at"
    }
}

/// Reads of `assistant_turns`, with each turn's answer from its run (`agent_runs.final`).
struct AssistantConversationReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The most turns, and characters of each side of a turn, the next message carries.
    static let historyTurns = 6
    static let historyCharacters = 600

    /// Whose the conversation is and in which household (its first turn's); nil for a new one.
    func owner(of conversation: UUID) async throws -> (user: UUID, household: UUID)? {
        let rows = try await client.query(
            "SELECT user_id, household_id FROM assistant_turns WHERE conversation_id = \(conversation) ORDER BY asked_at, run_id LIMIT 1",
            logger: logger)
        for try await (user, household) in rows.decode((UUID, UUID).self) { return (user, household) }
        return nil
    }

    /// The conversation's last turns, oldest first, shortened to the history budget.
    func history(of conversation: UUID) async throws -> [ConversationTurn] {
        let turns = try await self.turns(of: conversation, newest: Self.historyTurns)
        return turns.map {
            ConversationTurn(question: Self.shortened($0.question), answer: Self.shortened($0.answer ?? ""))
        }
    }

    /// The conversation's turns, oldest first (the newest `newest` when given).
    func turns(of conversation: UUID, newest: Int? = nil) async throws -> [ConversationTurnView] {
        let rows = try await client.query(
            """
            SELECT t.run_id, t.question, r.final->>'answer', r.state, t.asked_at FROM assistant_turns t
            LEFT JOIN agent_runs r ON r.run_id = t.run_id
            WHERE t.conversation_id = \(conversation)
            ORDER BY t.asked_at DESC, t.run_id DESC LIMIT \(newest ?? 500)
            """, logger: logger)
        var turns: [ConversationTurnView] = []
        for try await (run, question, answer, state, asked) in rows.decode((UUID, String, String?, String?, Date).self) {
            turns.append(ConversationTurnView(runId: run, question: question, answer: answer, state: state, askedAt: asked))
        }
        return turns.reversed()
    }

    /// The user's conversations, the most recently active first, older than `before`'s last turn.
    func conversations(of user: UUID, before: UUID?, limit: Int) async throws -> [ConversationSummaryView] {
        let rows = try await client.query(
            """
            SELECT c.conversation_id, c.household_id, c.turns, c.started_at, c.last_asked_at, c.last_question FROM (
                SELECT conversation_id,
                       (array_agg(household_id ORDER BY asked_at DESC, run_id DESC))[1] AS household_id,
                       count(*)::int8 AS turns, min(asked_at) AS started_at, max(asked_at) AS last_asked_at,
                       (array_agg(question ORDER BY asked_at DESC, run_id DESC))[1] AS last_question
                FROM assistant_turns WHERE user_id = \(user)
                  AND household_id IN (SELECT household_id FROM user_households WHERE user_id = \(user))
                GROUP BY conversation_id) c
            WHERE \(before)::uuid IS NULL OR (c.last_asked_at, c.conversation_id) <
                  (SELECT max(asked_at), \(before)::uuid FROM assistant_turns WHERE conversation_id = \(before) AND user_id = \(user))
            ORDER BY c.last_asked_at DESC, c.conversation_id DESC LIMIT \(limit)
            """, logger: logger)
        var conversations: [ConversationSummaryView] = []
        for try await (id, household, turns, started, last, question) in rows.decode((UUID, UUID, Int, Date, Date, String).self) {
            conversations.append(
                ConversationSummaryView(
                    conversationId: id, householdId: household, turns: turns, startedAt: started, lastAskedAt: last, lastQuestion: question))
        }
        return conversations
    }

    static func shortened(_ text: String) -> String { Excerpt.clipped(text, to: historyCharacters) }
}
