import Foundation
import HearthDomain
import HearthRuntime
import HTTPTypes
import Logging
import PostgresNIO

/// Per device (a device's anonymous account, or a signed-in account) and UTC day: how many
/// activity submissions (and later cloud idea requests) it may make. Counted in
/// `activity_daily_usage` at admission, in one atomic statement, so concurrent requests on any
/// gateway cannot overshoot and the count holds before the event is projected.
struct ActivityDailyAllowance: Sendable {
    enum Action: String, Sendable {
        case submission
        case idea
    }

    let client: PostgresClient
    let logger: Logger

    /// Counts one `action` for `user` today, or throws the 429 (with `Retry-After` until the next
    /// UTC midnight) once `limit` are used.
    func admit(_ action: Action, for user: UUID, limit: Int, now: Date = Date()) async throws {
        let day = CalendarDay(now, in: .gmt).isoDate
        let rows = try await client.query(
            """
            WITH admitted AS (
                INSERT INTO activity_daily_usage (user_id, action, day, used)
                SELECT \(user), \(action.rawValue), \(day)::date, 1 WHERE \(limit) > 0
                ON CONFLICT (user_id, action, day) DO UPDATE SET used = activity_daily_usage.used + 1
                    WHERE activity_daily_usage.used < \(limit)
                RETURNING used
            )
            SELECT count(*) FROM admitted
            """, logger: logger)
        var admitted = false
        for try await count in rows.decode(Int64.self) { admitted = count > 0 }
        guard !admitted else { return }
        let retryAfter = Self.secondsToNextDay(after: now)
        throw APIError(
            .tooManyRequests, code: "rate_limited", message: "at most \(limit) \(action.rawValue)s a day from one device; retry in \(retryAfter) s",
            headers: [HTTPField.Name("Retry-After")!: String(retryAfter)])
    }

    static func secondsToNextDay(after now: Date) -> Int {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        return 86_400 - seconds % 86_400
    }

    /// Deletes the days older than a week, every `interval`.
    func sweeper(every interval: Duration) -> PeriodicService {
        PeriodicService("deleting old activity usage days", every: interval, logger: logger) {
            try await deleteDays(before: Date().addingTimeInterval(-7 * 86_400))
        }
    }

    /// Old days go: kept a week for support questions.
    func deleteDays(before cutoff: Date) async throws {
        try await client.query("DELETE FROM activity_daily_usage WHERE day < \(CalendarDay(cutoff, in: .gmt).isoDate)::date", logger: logger)
    }
}
