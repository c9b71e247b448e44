import Foundation
import HearthDomain
import HearthStore
import Logging
import PostgresNIO

/// Runs per user per calendar month (UTC), `HEARTH_MONTHLY_QUOTA` (default 10, the seed's), or
/// the user's own quota an administrator set (`admin.user_quota_set`, `assist_quota_overrides`).
///
/// Counted in `assist_quota_usage` at admission, in one atomic statement, so concurrent
/// requests (on any gateway instance) cannot overshoot, and a run counts from the moment it is
/// admitted rather than once its events are projected.
struct MonthlyQuota: Sendable {
    let client: PostgresClient
    let limit: Int
    let logger: Logger

    enum Decision: Sendable, Equatable {
        /// `quota`: the user's quota this month (theirs, or the default).
        case admitted(used: Int, quota: Int)
        case exceeded(used: Int, quota: Int)
    }

    /// The first day of `day`'s month.
    static func monthStart(of day: CalendarDay) -> CalendarDay {
        CalendarDay(year: day.year, month: day.month, day: 1)!
    }

    /// Seconds until the quota's month turns over (UTC): the `Retry-After` of a refused run.
    static func secondsToNextMonth(after now: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let start = calendar.dateInterval(of: .month, for: now).map { $0.end } ?? now.addingTimeInterval(86_400)
        return max(1, Int(start.timeIntervalSince(now).rounded(.up)))
    }

    /// The first day of the next month: when the quota resets.
    static func resetDate(after day: CalendarDay) -> CalendarDay {
        day.month == 12 ? CalendarDay(year: day.year + 1, month: 1, day: 1)! : CalendarDay(year: day.year, month: day.month + 1, day: 1)!
    }

    /// Counts one run if the user has quota left.
    ///
    /// On every run's critical path, so the commit does not wait for the WAL flush
    /// (`synchronous_commit` off for this statement): a Postgres crash may forget the last
    /// fraction of a second's admissions, i.e. hand out a run or two again — cheaper than a
    /// fsync per request.
    func admit(_ user: UUID, today: CalendarDay) async throws -> Decision {
        let rows = try await client.execute(
            Admission(user: user, month: Self.monthStart(of: today).isoDate, limit: limit), logger: logger)
        var admittedUsed: Int?
        var storedUsed = 0
        var quota = limit
        for try await (admitted, used, applied) in rows {
            quota = Int(applied)
            if admitted { admittedUsed = Int(used) } else { storedUsed = Int(used) }
        }
        if let admittedUsed { return .admitted(used: admittedUsed, quota: quota) }
        return .exceeded(used: storedUsed, quota: quota)
    }

    /// On the critical path of every run: prepared once per connection. The user's own quota, if
    /// an administrator set one, is one primary-key lookup in the same statement.
    struct Admission: PreparedStatement {
        static let sql = """
            WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true)),
            quota AS (SELECT coalesce((SELECT monthly_quota FROM assist_quota_overrides WHERE user_id = $1), $3::int) AS n),
            admitted AS (
                INSERT INTO assist_quota_usage (user_id, month, used)
                SELECT $1, $2::date, 1 FROM relaxed, quota WHERE quota.n > 0
                ON CONFLICT (user_id, month) DO UPDATE SET used = assist_quota_usage.used + 1
                    WHERE assist_quota_usage.used < (SELECT n FROM quota)
                RETURNING used
            )
            SELECT true, used, (SELECT n FROM quota) FROM admitted
            UNION ALL
            SELECT false, coalesce((SELECT used FROM assist_quota_usage WHERE user_id = $1 AND month = $2::date), 0), (SELECT n FROM quota)
            """
        static let bindingDataTypes: [PostgresDataType] = [.uuid, .text, .int8]
        typealias Row = (Bool, Int32, Int32)

        var user: UUID
        /// The first day of the month, `YYYY-MM-DD`.
        var month: String
        var limit: Int

        var parameters: [any PostgresEncodable] { [user, month, limit] }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(Row.self)
        }
    }

    /// Gives a run back when it was admitted but could not be started (the publish failed).
    func release(_ user: UUID, today: CalendarDay) async {
        let month = Self.monthStart(of: today).isoDate
        do {
            try await client.query(
                "UPDATE assist_quota_usage SET used = used - 1 WHERE user_id = \(user) AND month = \(month)::date AND used > 0",
                logger: logger)
        } catch {
            logger.warning("cannot give back a quota unit", metadata: ["error": "\(error)"])
        }
    }

    /// How many runs the user has started this month.
    func used(by user: UUID, today: CalendarDay) async throws -> Int {
        let month = Self.monthStart(of: today).isoDate
        let rows = try await client.query(
            "SELECT used FROM assist_quota_usage WHERE user_id = \(user) AND month = \(month)::date", logger: logger)
        for try await used in rows.decode(Int32.self) { return Int(used) }
        return 0
    }

    /// The user's quota: the one an administrator set, else the default.
    func limit(for user: UUID) async throws -> Int {
        try await custom(for: user) ?? limit
    }

    /// The quota an administrator set for the user; nil: the default applies.
    func custom(for user: UUID) async throws -> Int? {
        for try await quota in try await client.query(
            "SELECT monthly_quota FROM assist_quota_overrides WHERE user_id = \(user)", logger: logger
        ).decode(Int32?.self) {
            return quota.map(Int.init)
        }
        return nil
    }
}
