import Foundation
import HearthDomain
import Hummingbird
import HearthRuntime
import Logging
import PostgresNIO

/// `GET /v1/admin/users/{user_id}`, the *Users* page's detail: the account, its runs and tokens
/// over 30 days, this month's quota and its sign-ins. Nothing the user wrote (messages,
/// wellbeing) is part of it.
struct AdminUserDetail: ResponseEncodable, Sendable {
    struct SignIns: Encodable, Sendable {
        let total: Int
        let open: Int
        let lastSignedInAt: Date?

        enum CodingKeys: String, CodingKey {
            case total, open
            case lastSignedInAt = "last_signed_in_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(total, forKey: .total)
            try container.encode(open, forKey: .open)
            try container.encode(lastSignedInAt, forKey: .lastSignedInAt)
        }
    }

    let user: UserView
    let runs30Days: Int
    let tokens30Days: Int
    let quota: UserUsageReport.Quota
    let signIns: SignIns
    let isAdmin: Bool

    enum CodingKeys: String, CodingKey {
        case user
        case runs30Days = "runs_30_days"
        case tokens30Days = "tokens_30_days"
        case quota
        case signIns = "sign_ins"
        case isAdmin = "is_admin"
    }
}

struct AdminUserLookup: Sendable {
    let users: UserReadModel
    let usage: UsageReadModel
    let quota: MonthlyQuota
    let admins: Set<UUID>
    let client: PostgresClient
    let logger: Logger

    func detail(_ id: UUID) async throws -> AdminUserDetail {
        guard let user = try await users.find(id) else { throw APIError.notFound("user") }
        let today = CalendarDay(Date(), in: .gmt)
        async let totals = usage.totals(days: 30, user: id)
        async let used = quota.used(by: id, today: today)
        var signIns = AdminUserDetail.SignIns(total: 0, open: 0, lastSignedInAt: nil)
        for try await (total, open, last) in try await client.query(
            "SELECT count(*)::int, (count(*) FILTER (WHERE revoked_at IS NULL))::int, max(signed_in_at) FROM auth_sessions WHERE user_id = \(id)",
            logger: logger
        ).decode((Int, Int, Date?).self) {
            signIns = AdminUserDetail.SignIns(total: total, open: open, lastSignedInAt: last)
        }
        let spent = try await used, period = try await totals
        return AdminUserDetail(
            user: user, runs30Days: period.runs, tokens30Days: period.totalTokens,
            quota: .init(quota: quota.limit, used: spent, remaining: max(0, quota.limit - spent), resetDate: MonthlyQuota.resetDate(after: today).isoDate),
            signIns: signIns, isAdmin: admins.contains(id))
    }
}
