import Foundation
import HearthDomain
import Hummingbird
import HearthEvents
import HearthRuntime
import HearthStore
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
    /// The quota an administrator set for this user; nil: the default applies.
    let customQuota: Int?
    let signIns: SignIns
    let isAdmin: Bool

    enum CodingKeys: String, CodingKey {
        case user
        case runs30Days = "runs_30_days"
        case tokens30Days = "tokens_30_days"
        case quota
        case customQuota = "custom_quota"
        case signIns = "sign_ins"
        case isAdmin = "is_admin"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(runs30Days, forKey: .runs30Days)
        try container.encode(tokens30Days, forKey: .tokens30Days)
        try container.encode(quota, forKey: .quota)
        try container.encode(customQuota, forKey: .customQuota)
        try container.encode(signIns, forKey: .signIns)
        try container.encode(isAdmin, forKey: .isAdmin)
    }
}

/// Body of `PUT /v1/admin/users/{user_id}/quota`.
struct QuotaRequest: Decodable {
    /// Runs a month; null puts the user back on the default.
    var monthlyQuota: Int?

    enum CodingKeys: String, CodingKey {
        case monthlyQuota = "monthly_quota"
    }

    static let range = 0...1_000_000

    /// `monthly_quota` must be present (null or a number): a body without it says nothing.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.monthlyQuota) else { throw APIError.invalid("monthly_quota", "monthly_quota is required (a number, or null for the default)") }
        monthlyQuota = try container.decodeIfPresent(Int.self, forKey: .monthlyQuota)
    }

    init(monthlyQuota: Int?) {
        self.monthlyQuota = monthlyQuota
    }

    func validated() throws -> Int? {
        if let monthlyQuota, !Self.range.contains(monthlyQuota) {
            throw APIError.invalid("monthly_quota", "monthly_quota must be a whole number in \(Self.range.lowerBound)...\(Self.range.upperBound), or null")
        }
        return monthlyQuota
    }
}

struct QuotaSet: ResponseEncodable {
    @LowercaseID var userId: UUID
    let monthlyQuota: Int?
    let position: String

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case monthlyQuota = "monthly_quota"
        case position
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(_userId, forKey: .userId)
        try container.encode(monthlyQuota, forKey: .monthlyQuota)
        try container.encode(position, forKey: .position)
    }
}

struct AdminUserLookup: Sendable {
    let users: UserReadModel
    let usage: UsageReadModel
    let quota: MonthlyQuota
    let admins: Set<UUID>
    let publisher: EventPublisher
    let consistency: ReadConsistency
    let client: PostgresClient
    let logger: Logger

    /// Gives `user` their own monthly quota (nil: the default again), as `admin.user_quota_set`
    /// naming the admin; answers once the quota applies.
    func setQuota(of user: UUID, to quota: Int?, by admin: UUID, correlationId: String) async throws -> QuotaSet {
        guard try await users.exists(user) else { throw APIError.notFound("user") }
        let position = try await publisher.publish(AdminUserQuotaSet(adminId: admin, userId: user, monthlyQuota: quota), correlationId: correlationId)
        logger.notice("monthly quota set by an admin", metadata: ["admin_id": "\(admin)", "user_id": "\(user)", "monthly_quota": "\(quota.map(String.init) ?? "default")"])
        try await consistency.awaitApplied(position, projections: [AdminActionsProjection().name])
        return QuotaSet(userId: user, monthlyQuota: quota, position: position.description)
    }

    func detail(_ id: UUID) async throws -> AdminUserDetail {
        guard let user = try await users.find(id) else { throw APIError.notFound("user") }
        let today = CalendarDay(Date(), in: .gmt)
        async let totals = usage.totals(days: 30, user: id)
        async let used = quota.used(by: id, today: today)
        async let own = quota.custom(for: id)
        var signIns = AdminUserDetail.SignIns(total: 0, open: 0, lastSignedInAt: nil)
        for try await (total, open, last) in try await client.query(
            "SELECT count(*)::int, (count(*) FILTER (WHERE revoked_at IS NULL))::int, max(signed_in_at) FROM auth_sessions WHERE user_id = \(id)",
            logger: logger
        ).decode((Int, Int, Date?).self) {
            signIns = AdminUserDetail.SignIns(total: total, open: open, lastSignedInAt: last)
        }
        let spent = try await used, period = try await totals, custom = try await own
        let applied = custom ?? quota.limit
        return AdminUserDetail(
            user: user, runs30Days: period.runs, tokens30Days: period.totalTokens,
            quota: .init(quota: applied, used: spent, remaining: max(0, applied - spent), resetDate: MonthlyQuota.resetDate(after: today).isoDate),
            customQuota: custom, signIns: signIns, isAdmin: admins.contains(id))
    }
}
