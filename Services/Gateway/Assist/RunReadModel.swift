import Foundation
import HearthEvents
import Hummingbird
import Logging
import PostgresNIO

/// A run as `GET /v1/assist/runs/{run_id}` answers it: its `agent_runs` row.
struct RunView: ResponseEncodable, Sendable {
    var runId: UUID
    var userId: UUID
    var householdId: UUID?
    var mode: String
    var graph: String
    var state: String
    var goal: String
    var days: Int
    var startDate: String
    var terminalEvent: String?
    var final: JSONValue?
    var startedAt: Date
    var finishedAt: Date?
    var durationMs: Int?
    var inputTokens: Int
    var outputTokens: Int
    var totalTokens: Int
    var costCents: Double
    var modelsUsed: [String: Int]
    /// How many stream events the read model holds (the seq of the last one).
    var events: Int

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case userId = "user_id"
        case householdId = "household_id"
        case mode, graph, state, goal, days
        case startDate = "start_date"
        case terminalEvent = "terminal_event"
        case final
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case durationMs = "duration_ms"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case totalTokens = "total_tokens"
        case costCents = "cost_cents"
        case modelsUsed = "models_used"
        case events
    }

    var isFinished: Bool { RunHead.isFinished(state: state) }
}

struct RunHead: Sendable {
    var owner: UUID
    var isFinished: Bool
    var lastSeq: Int

    /// Every state but `running` is an end.
    static func isFinished(state: String) -> Bool { state != "running" }
}

/// Queries on the orchestrator's read models (`agent_runs`, `assist_run_events`), which live in
/// the same database (a read across executables, declared in `ReadModelCatalogue.foreignReads`).
struct RunReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    func run(_ id: UUID) async throws -> RunView? {
        let rows = try await client.query(
            """
            SELECT run_id, user_id, household_id, mode, graph, state, goal, days, to_char(start_date, 'YYYY-MM-DD'),
                   terminal_event, final::text, started_at, finished_at, duration_ms, input_tokens, output_tokens,
                   total_tokens, cost_cents::float8, models_used::text, last_seq
            FROM agent_runs WHERE run_id = \(id)
            """, logger: logger)
        let decoder = JSONDecoder()
        for try await row in rows {
            let columns = row.makeRandomAccess()
            let final = try columns[10].decode(String?.self).map { try decoder.decode(JSONValue.self, from: Data($0.utf8)) }
            let models = try decoder.decode([String: Int].self, from: Data(try columns[18].decode(String.self).utf8))
            return RunView(
                runId: try columns[0].decode(UUID.self), userId: try columns[1].decode(UUID.self),
                householdId: try columns[2].decode(UUID?.self), mode: try columns[3].decode(String.self),
                graph: try columns[4].decode(String.self), state: try columns[5].decode(String.self),
                goal: try columns[6].decode(String.self), days: Int(try columns[7].decode(Int32.self)),
                startDate: try columns[8].decode(String.self), terminalEvent: try columns[9].decode(String?.self),
                final: final, startedAt: try columns[11].decode(Date.self), finishedAt: try columns[12].decode(Date?.self),
                durationMs: try columns[13].decode(Int32?.self).map(Int.init),
                inputTokens: Int(try columns[14].decode(Int32.self)), outputTokens: Int(try columns[15].decode(Int32.self)),
                totalTokens: Int(try columns[16].decode(Int32.self)), costCents: try columns[17].decode(Double.self),
                modelsUsed: models, events: Int(try columns[19].decode(Int32.self)))
        }
        return nil
    }

    /// What the events route needs before streaming: who owns the run, whether it has finished,
    /// and the seq of its last stored event. Nil while the run is not (yet) in the read model.
    func head(of id: UUID) async throws -> RunHead? {
        let rows = try await client.query("SELECT user_id, state, last_seq FROM agent_runs WHERE run_id = \(id)", logger: logger)
        for try await (owner, state, lastSeq) in rows.decode((UUID, String, Int32).self) {
            return RunHead(owner: owner, isFinished: RunHead.isFinished(state: state), lastSeq: Int(lastSeq))
        }
        return nil
    }

    /// Stored stream events with `from <= seq <= through`, in order.
    func events(of id: UUID, from: Int, through: Int = Int(Int32.max)) async throws -> [RunStreamEventText] {
        let rows = try await client.query(
            """
            SELECT seq, event, data::text, elapsed_ms FROM assist_run_events
            WHERE run_id = \(id) AND seq >= \(Int32(clamping: from)) AND seq <= \(Int32(clamping: through))
            ORDER BY seq
            """, logger: logger)
        var events: [RunStreamEventText] = []
        for try await (seq, event, data, elapsed) in rows.decode((Int32, String, String, Int32?).self) {
            events.append(RunStreamEventText(seq: Int(seq), event: event, data: data, elapsedMs: elapsed.map(Int.init)))
        }
        return events
    }
}
