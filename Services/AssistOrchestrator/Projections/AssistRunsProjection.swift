import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `agent_runs`, `run_metrics` and `assist_run_events` from `assist.events`.
///
/// A run's events share a key, so they arrive in publication order: `assist.run_started`, its
/// `assist.run_event`s, `assist.run_completed`. A batch is written in at most four statements
/// whatever its size (runs opened, stream events, metrics, then one update of the touched runs;
/// a fifth when it holds an erasure), because a streamed plan is dozens of events and the
/// projection must keep up with the stream.
///
/// `user.erased` (users topic) removes the user's runs, the runs it names and those of the
/// households erased with the user. The users topic comes last: a rebuild reads archived history
/// topic by topic in this order, so the erasure lands after the runs it rebuilt.
public struct AssistRunsProjection: Projection {
    public let name = "assist_runs"
    public let topics: [Topic] = [.assistEvents, .users]
    public let tables = ["agent_runs", "run_metrics", "assist_run_events"]
    /// Of the users topic only the erasure matters.
    public let eventTypes: Set<String>? = [
        AssistRunStarted.eventType, AssistRunEvent.eventType, AssistRunCompleted.eventType, AssistRunExpired.eventType, UserErased.eventType,
    ]
    /// Stream events are read from their JSON text: their `data` (a whole plan, for `final`) is
    /// stored as it arrived, so decoding it into a tree would be wasted.
    public var rawPayloadTypes: [String: Int] { [AssistRunEvent.eventType: AssistRunEvent.version] }

    /// The stream events that end a run; exactly one per run, before `done`.
    public static let terminalEvents: Set<String> = ["final", "refusal", "quota_exceeded", "error"]

    public init() {}

    /// What one batch changes in one run's `agent_runs` row.
    private struct RunUpdate {
        var lastSeq = 0
        var terminal: (event: String, data: String)?
        var completed: (event: AssistRunCompleted, at: Date)?
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]

        var started: [(AssistRunStarted, Date)] = []
        var streamRows = StreamRows()
        var metricRows = MetricRows()
        var updates: [UUID: RunUpdate] = [:]
        var updateOrder: [UUID] = []
        var erasures: [UserErased] = []
        var expired: [UUID] = []
        func touch(_ run: UUID, _ change: (inout RunUpdate) -> Void) {
            if updates[run] == nil { updateOrder.append(run) }
            change(&updates[run, default: RunUpdate()])
        }

        for event in events {
            // A stream event's `data` is stored as the JSON text it arrived as (what the gateway
            // streams live), not re-encoded from the decoded tree: replays match byte for byte.
            if event.metadata.type == AssistRunEvent.eventType {
                let text: AssistRunEventText
                if let payload = event.payload as? AssistRunEvent {
                    // Upcast from an older version (another layout): its text is rebuilt.
                    text = AssistRunEventText(
                        runId: payload.runId.uuidString, seq: payload.seq, event: payload.event,
                        data: String(decoding: try encoder.encode(payload.data), as: UTF8.self), elapsedMs: payload.elapsedMs)
                } else if let raw = AssistRunEventText(envelope: event.value) {
                    text = raw
                } else {
                    throw InvalidEvent(reason: "not a readable assist.run_event", position: event.position)
                }
                guard let runId = UUID(uuidString: text.runId) else {
                    throw InvalidEvent(reason: "run_id \(text.runId) is not a UUID", position: event.position)
                }
                guard text.seq > 0, Int32(exactly: text.seq) != nil else {
                    throw InvalidEvent(reason: "seq \(text.seq) is out of range", position: event.position)
                }
                streamRows.append(runId: runId, text, at: event.metadata.occurredAt)
                touch(runId) { update in
                    update.lastSeq = max(update.lastSeq, text.seq)
                    if Self.terminalEvents.contains(text.event) { update.terminal = (text.event, text.data) }
                }
                continue
            }
            switch event.payload {
            case let payload as AssistRunStarted:
                started.append((payload, event.metadata.occurredAt))
            case let payload as AssistRunCompleted:
                for (index, attempt) in payload.attempts.enumerated() {
                    metricRows.append(run: payload.runId, attempt: index + 1, attempt, at: event.metadata.occurredAt)
                }
                touch(payload.runId) { $0.completed = (payload, event.metadata.occurredAt) }
            case let payload as AssistRunExpired:
                expired.append(payload.runId)
            case let payload as UserErased:
                erasures.append(payload)
            default:
                continue
            }
        }

        if !started.isEmpty { try await insertRuns(started, on: connection, logger: logger) }
        if !streamRows.runs.isEmpty { try await streamRows.insert(on: connection, logger: logger) }
        if !metricRows.runs.isEmpty { try await metricRows.insert(on: connection, logger: logger) }
        if !updateOrder.isEmpty {
            try await update(updateOrder.map { ($0, updates[$0]!) }, encoder: encoder, on: connection, logger: logger)
        }
        // Last, after the batch's runs are written: an erased user's run cannot go on after the
        // erasure, so whatever of theirs this batch wrote is theirs to remove too.
        // An expiry follows its run's events on their partition: after this batch's writes.
        if !expired.isEmpty { try await expire(expired, on: connection, logger: logger) }
        if !erasures.isEmpty { try await erase(erasures, on: connection, logger: logger) }
    }

    /// A run past retention keeps its counts and costs, and loses what it said: its goal, its
    /// final plan, its stream and its model errors (sealed with the run's key, now destroyed).
    private func expire(_ runs: [UUID], on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            WITH stream AS (
                DELETE FROM assist_run_events WHERE run_id = ANY(\(runs)::uuid[])
            ), metrics AS (
                UPDATE run_metrics SET error = NULL WHERE run_id = ANY(\(runs)::uuid[])
            )
            UPDATE agent_runs SET goal = '', final = NULL, content_expired = true WHERE run_id = ANY(\(runs)::uuid[])
            """, logger: logger)
    }

    /// Deletes the runs of the erased users, the runs their events name (whose keys were destroyed
    /// with theirs) and the runs of the erased households, with the runs' stream and metrics rows.
    /// One statement, so `agent_runs` (which has no household index) is scanned once.
    private func erase(_ erasures: [UserErased], on connection: PostgresConnection, logger: Logger) async throws {
        let users = erasures.map(\.userId)
        let runs = erasures.flatMap(\.runIds)
        let households = erasures.flatMap(\.householdIds)
        try await connection.query(
            """
            WITH gone AS (
                DELETE FROM agent_runs
                WHERE run_id = ANY(\(runs)::uuid[]) OR user_id = ANY(\(users)::uuid[]) OR household_id = ANY(\(households)::uuid[])
                RETURNING run_id
            ), erased AS (
                SELECT run_id FROM gone UNION SELECT unnest(\(runs)::uuid[])
            ), stream AS (
                DELETE FROM assist_run_events WHERE run_id IN (SELECT run_id FROM erased)
            )
            DELETE FROM run_metrics WHERE run_id IN (SELECT run_id FROM erased)
            """, logger: logger)
    }

    private func insertRuns(_ runs: [(AssistRunStarted, Date)], on connection: PostgresConnection, logger: Logger) async throws {
        var ids: [UUID] = [], users: [UUID] = [], households: [String] = [], modes: [String] = [], goals: [String] = []
        var days: [Int32] = [], startDates: [String] = [], times: [String] = []
        for (run, at) in runs {
            ids.append(run.runId)
            users.append(run.userId)
            households.append(run.householdId?.uuidString ?? "")
            modes.append(run.mode)
            goals.append(run.goal)
            days.append(Int32(clamping: run.days))
            startDates.append(run.startDate)
            times.append(Timestamp.format(at))
        }
        try await connection.query(
            """
            INSERT INTO agent_runs (run_id, user_id, household_id, mode, graph, state, goal, days, start_date, started_at)
            SELECT id, user_id, NULLIF(household_id, '')::uuid, mode, mode || '_v1', 'running', goal, days,
                   start_date::date, started::timestamptz
            FROM unnest(\(ids)::uuid[], \(users)::uuid[], \(households)::text[], \(modes)::text[], \(goals)::text[],
                        \(days)::int[], \(startDates)::text[], \(times)::text[])
                 AS v(id, user_id, household_id, mode, goal, days, start_date, started)
            ON CONFLICT (run_id) DO NOTHING
            """, logger: logger)
    }

    private func update(_ runs: [(UUID, RunUpdate)], encoder: JSONEncoder, on connection: PostgresConnection, logger: Logger) async throws {
        var ids: [UUID] = [], lastSeqs: [Int32] = []
        var hasTerminal: [Bool] = [], terminalEvents: [String] = [], finals: [String] = []
        var hasCompleted: [Bool] = [], states: [String] = [], finished: [String] = [], durations: [Int32] = []
        var inputs: [Int32] = [], outputs: [Int32] = [], costs: [Double] = [], models: [String] = []
        for (id, update) in runs {
            ids.append(id)
            lastSeqs.append(Int32(clamping: update.lastSeq))
            hasTerminal.append(update.terminal != nil)
            terminalEvents.append(update.terminal?.event ?? "")
            finals.append(update.terminal?.data ?? "null")
            let completed = update.completed
            hasCompleted.append(completed != nil)
            states.append(completed?.event.outcome ?? "")
            finished.append(completed.map { Timestamp.format($0.at) } ?? Timestamp.format(Date(timeIntervalSince1970: 0)))
            durations.append(Int32(clamping: completed?.event.elapsedMs ?? 0))
            inputs.append(Int32(clamping: completed?.event.inputTokens ?? 0))
            outputs.append(Int32(clamping: completed?.event.outputTokens ?? 0))
            costs.append(completed?.event.costCents ?? 0)
            models.append(String(decoding: try encoder.encode(completed?.event.modelsUsed ?? [:]), as: UTF8.self))
        }
        try await connection.query(
            """
            UPDATE agent_runs AS r SET
                last_seq = GREATEST(r.last_seq, v.last_seq),
                terminal_event = CASE WHEN v.has_terminal THEN v.terminal_event ELSE r.terminal_event END,
                final = CASE WHEN v.has_terminal THEN v.final::jsonb ELSE r.final END,
                state = CASE WHEN v.has_completed THEN v.state ELSE r.state END,
                finished_at = CASE WHEN v.has_completed THEN v.finished::timestamptz ELSE r.finished_at END,
                duration_ms = CASE WHEN v.has_completed THEN v.duration ELSE r.duration_ms END,
                input_tokens = CASE WHEN v.has_completed THEN v.input_tokens ELSE r.input_tokens END,
                output_tokens = CASE WHEN v.has_completed THEN v.output_tokens ELSE r.output_tokens END,
                total_tokens = CASE WHEN v.has_completed THEN v.input_tokens + v.output_tokens ELSE r.total_tokens END,
                cost_cents = CASE WHEN v.has_completed THEN v.cost ELSE r.cost_cents END,
                models_used = CASE WHEN v.has_completed THEN v.models::jsonb ELSE r.models_used END
            FROM unnest(\(ids)::uuid[], \(lastSeqs)::int[], \(hasTerminal)::bool[], \(terminalEvents)::text[], \(finals)::text[],
                        \(hasCompleted)::bool[], \(states)::text[], \(finished)::text[], \(durations)::int[],
                        \(inputs)::int[], \(outputs)::int[], \(costs)::float8[], \(models)::text[])
                 AS v(id, last_seq, has_terminal, terminal_event, final, has_completed, state, finished, duration,
                      input_tokens, output_tokens, cost, models)
            WHERE r.run_id = v.id
            """, logger: logger)
    }
}

/// Column arrays of `assist_run_events` rows, inserted with one `unnest`.
private struct StreamRows {
    var runs: [UUID] = [], seqs: [Int32] = [], events: [String] = [], data: [String] = []
    var elapsed: [Int32] = [], hasElapsed: [Bool] = [], times: [String] = []

    mutating func append(runId: UUID, _ event: AssistRunEventText, at: Date) {
        runs.append(runId)
        seqs.append(Int32(event.seq))
        events.append(event.event)
        data.append(event.data)
        elapsed.append(Int32(clamping: event.elapsedMs ?? 0))
        hasElapsed.append(event.elapsedMs != nil)
        times.append(Timestamp.format(at))
    }

    func insert(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO assist_run_events (run_id, seq, event, data, elapsed_ms, occurred_at)
            SELECT run_id, seq, event, data::json, CASE WHEN has_elapsed THEN elapsed END, at::timestamptz
            FROM unnest(\(runs)::uuid[], \(seqs)::int[], \(events)::text[], \(data)::text[], \(elapsed)::int[],
                        \(hasElapsed)::bool[], \(times)::text[])
                 AS v(run_id, seq, event, data, elapsed, has_elapsed, at)
            ON CONFLICT (run_id, seq) DO NOTHING
            """, logger: logger)
    }
}

/// Column arrays of `run_metrics` rows. `model_meta` takes the mode from the run's row, which
/// an earlier statement of the same transaction (or an earlier batch) created.
private struct MetricRows {
    var runs: [UUID] = [], attempts: [Int32] = [], phases: [String] = [], providers: [String] = [], models: [String] = []
    var inputs: [Int32] = [], outputs: [Int32] = [], costs: [Double] = [], latencies: [Int32] = []
    var outcomes: [String] = [], errors: [String] = [], hasError: [Bool] = [], times: [String] = []

    mutating func append(run: UUID, attempt number: Int, _ attempt: AssistModelAttempt, at: Date) {
        runs.append(run)
        attempts.append(Int32(clamping: number))
        phases.append(attempt.phase)
        providers.append(attempt.provider)
        models.append(attempt.model)
        inputs.append(Int32(clamping: attempt.inputTokens))
        outputs.append(Int32(clamping: attempt.outputTokens))
        costs.append(attempt.costCents)
        latencies.append(Int32(clamping: attempt.latencyMs))
        outcomes.append(attempt.outcome)
        errors.append(attempt.error ?? "")
        hasError.append(attempt.error != nil)
        times.append(Timestamp.format(at))
    }

    func insert(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO run_metrics (run_id, attempt, phase, provider, model, input_tokens, output_tokens, cost_cents,
                                     latency_ms, outcome, error, model_meta, created_at)
            SELECT v.run_id, v.attempt, v.phase, v.provider, v.model, v.input_tokens, v.output_tokens, v.cost, v.latency,
                   v.outcome, CASE WHEN v.has_error THEN v.error END,
                   jsonb_build_object('mode', r.mode, 'provider', v.provider, 'model', v.model), v.at::timestamptz
            FROM unnest(\(runs)::uuid[], \(attempts)::int[], \(phases)::text[], \(providers)::text[], \(models)::text[],
                        \(inputs)::int[], \(outputs)::int[], \(costs)::float8[], \(latencies)::int[], \(outcomes)::text[],
                        \(errors)::text[], \(hasError)::bool[], \(times)::text[])
                 AS v(run_id, attempt, phase, provider, model, input_tokens, output_tokens, cost, latency, outcome,
                      error, has_error, at)
            LEFT JOIN agent_runs r ON r.run_id = v.run_id
            ON CONFLICT (run_id, attempt) DO NOTHING
            """, logger: logger)
    }
}
