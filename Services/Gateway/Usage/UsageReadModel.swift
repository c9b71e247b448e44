import Foundation
import Logging
import PostgresNIO

/// Token and cost totals over a period, the seed's usage numbers.
struct UsageTotals: Sendable, Equatable {
    var runs = 0
    var inputTokens = 0
    var outputTokens = 0
    var costCents = 0.0
    var totalTokens: Int { inputTokens + outputTokens }
}

/// One user's place in the admin ranking.
struct UserUsage: Sendable, Equatable {
    var userId: UUID
    var runs: Int
    var totalTokens: Int
    var costCents: Double
}

/// Aggregates over `agent_runs` (the orchestrator's read model) for the usage and admin routes.
/// A period is the last `days` days up to now, by the run's start.
struct UsageReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    func totals(days: Int, user: UUID? = nil) async throws -> UsageTotals {
        let rows = try await client.query(
            """
            SELECT count(*)::int8, coalesce(sum(input_tokens), 0)::int8, coalesce(sum(output_tokens), 0)::int8,
                   coalesce(sum(cost_cents), 0)::float8
            FROM agent_runs
            WHERE started_at >= now() - make_interval(days => \(Int32(days))) AND (\(user)::uuid IS NULL OR user_id = \(user))
            """, logger: logger)
        for try await (runs, input, output, cost) in rows.decode((Int64, Int64, Int64, Double).self) {
            return UsageTotals(runs: Int(runs), inputTokens: Int(input), outputTokens: Int(output), costCents: cost)
        }
        return UsageTotals()
    }

    /// `provider/model` → calls, summed over the period's runs (the seed's `models_used`).
    func models(days: Int, user: UUID? = nil) async throws -> [String: Int] {
        let rows = try await client.query(
            """
            SELECT m.key, sum(m.value::int)::int8
            FROM agent_runs r, jsonb_each_text(r.models_used) AS m
            WHERE r.started_at >= now() - make_interval(days => \(Int32(days))) AND (\(user)::uuid IS NULL OR r.user_id = \(user))
            GROUP BY m.key
            """, logger: logger)
        var models: [String: Int] = [:]
        for try await (model, calls) in rows.decode((String, Int64).self) { models[model] = Int(calls) }
        return models
    }

    /// Users with runs in the period, most tokens first.
    func topUsers(days: Int, limit: Int) async throws -> [UserUsage] {
        let rows = try await client.query(
            """
            SELECT user_id, count(*)::int8, coalesce(sum(total_tokens), 0)::int8, coalesce(sum(cost_cents), 0)::float8
            FROM agent_runs WHERE started_at >= now() - make_interval(days => \(Int32(days)))
            GROUP BY user_id ORDER BY 3 DESC, 2 DESC, user_id LIMIT \(Int32(limit))
            """, logger: logger)
        var users: [UserUsage] = []
        for try await (user, runs, tokens, cost) in rows.decode((UUID, Int64, Int64, Double).self) {
            users.append(UserUsage(userId: user, runs: Int(runs), totalTokens: Int(tokens), costCents: cost))
        }
        return users
    }

    /// How many users started a run in the period.
    func activeUsers(days: Int) async throws -> Int {
        let rows = try await client.query(
            "SELECT count(DISTINCT user_id)::int8 FROM agent_runs WHERE started_at >= now() - make_interval(days => \(Int32(days)))",
            logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Everyone who ever signed in (the gateway's `users` read model).
    func registeredUsers() async throws -> Int {
        let rows = try await client.query("SELECT count(*)::int8 FROM users", logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Runs started and their tokens per UTC calendar day, the last `days` days (today included),
    /// oldest first, days without runs included.
    func runsPerDay(days: Int) async throws -> [UsageDay] {
        let rows = try await client.query(
            """
            SELECT to_char(d.day, 'YYYY-MM-DD'), count(r.run_id)::int8, coalesce(sum(r.total_tokens), 0)::int8
            FROM generate_series((now() AT TIME ZONE 'UTC')::date - \(Int32(days - 1)), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
            LEFT JOIN agent_runs r ON (r.started_at AT TIME ZONE 'UTC')::date = d.day::date
            GROUP BY d.day ORDER BY d.day
            """, logger: logger)
        var series: [UsageDay] = []
        for try await (day, runs, tokens) in rows.decode((String, Int64, Int64).self) { series.append(UsageDay(date: day, runs: Int(runs), tokens: Int(tokens))) }
        return series
    }

    /// `provider/model` → cents, summed over every model call of the period (`run_metrics`, the
    /// calls that failed over included: they were paid for too).
    func costPerModel(days: Int) async throws -> [String: Double] {
        let rows = try await client.query(
            """
            SELECT provider || '/' || model, coalesce(sum(cost_cents), 0)::float8 FROM run_metrics
            WHERE created_at >= now() - make_interval(days => \(Int32(days))) GROUP BY 1
            """, logger: logger)
        var costs: [String: Double] = [:]
        for try await (model, cents) in rows.decode((String, Double).self) { costs[model] = cents }
        return costs
    }
}

/// One UTC day of the usage charts.
struct UsageDay: Sendable, Equatable, Encodable {
    let date: String
    let runs: Int
    let tokens: Int
}
