import Foundation
import Hummingbird

/// Cents with four decimals (model calls cost fractions of a cent) and the same in dollars.
enum Money {
    static func cents(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
    static func dollars(fromCents value: Double) -> Double { (value * 100).rounded() / 10_000 }
}

/// `GET /v1/users/{id}/usage`, in the seed's shape, plus the monthly quota.
struct UserUsageReport: ResponseEncodable, Sendable {
    struct Quota: Encodable, Sendable {
        let quota: Int
        let used: Int
        let remaining: Int
        let resetDate: String

        enum CodingKeys: String, CodingKey {
            case quota, used, remaining
            case resetDate = "reset_date"
        }
    }

    let userId: UUID
    let periodDays: Int
    let totals: UsageTotals
    let modelsUsed: [String: Int]
    let quota: Quota

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case periodDays = "period_days"
        case totalRuns = "total_runs"
        case totalTokens = "total_tokens"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case totalCostCents = "total_cost_cents"
        case totalCostUSD = "total_cost_usd"
        case averageTokens = "avg_tokens_per_run"
        case modelsUsed = "models_used"
        case quota
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId.uuidString.lowercased(), forKey: .userId)
        try container.encode(periodDays, forKey: .periodDays)
        try container.encode(totals.runs, forKey: .totalRuns)
        try container.encode(totals.totalTokens, forKey: .totalTokens)
        try container.encode(totals.inputTokens, forKey: .inputTokens)
        try container.encode(totals.outputTokens, forKey: .outputTokens)
        try container.encode(Money.cents(totals.costCents), forKey: .totalCostCents)
        try container.encode(Money.dollars(fromCents: totals.costCents), forKey: .totalCostUSD)
        let average = totals.runs == 0 ? 0 : Double(totals.totalTokens) / Double(totals.runs)
        try container.encode((average * 10).rounded() / 10, forKey: .averageTokens)
        try container.encode(modelsUsed, forKey: .modelsUsed)
        try container.encode(quota, forKey: .quota)
    }
}

/// `GET /v1/admin/stats`, in the seed's shape, plus what the dashboard draws.
struct AdminStatsReport: ResponseEncodable, Sendable {
    let periodDays: Int
    let totalUsers: Int
    let activeUsers: Int
    let totals: UsageTotals
    let topUsers: [UserUsage]
    let modelsBreakdown: [String: Int]
    let runsPerDay: [UsageDay]
    /// `provider/model` → cents over the period's model calls.
    let costPerModel: [String: Double]

    enum CodingKeys: String, CodingKey {
        case periodDays = "period_days"
        case totalUsers = "total_users"
        case activeUsers = "active_users"
        case totalRuns = "total_runs"
        case totalTokens = "total_tokens"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case totalCostCents = "total_cost_cents"
        case totalCostUSD = "total_cost_usd"
        case topUsers = "top_users"
        case modelsBreakdown = "models_breakdown"
        case runsPerDay = "runs_per_day"
        case costPerModelCents = "cost_per_model_cents"
    }

    private struct TopUser: Encodable {
        let userId: String
        let totalRuns: Int
        let totalTokens: Int
        let totalCostCents: Double

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case totalRuns = "total_runs"
            case totalTokens = "total_tokens"
            case totalCostCents = "total_cost_cents"
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(periodDays, forKey: .periodDays)
        try container.encode(totalUsers, forKey: .totalUsers)
        try container.encode(activeUsers, forKey: .activeUsers)
        try container.encode(totals.runs, forKey: .totalRuns)
        try container.encode(totals.totalTokens, forKey: .totalTokens)
        try container.encode(totals.inputTokens, forKey: .inputTokens)
        try container.encode(totals.outputTokens, forKey: .outputTokens)
        try container.encode(Money.cents(totals.costCents), forKey: .totalCostCents)
        try container.encode(Money.dollars(fromCents: totals.costCents), forKey: .totalCostUSD)
        try container.encode(topUsers.map {
            TopUser(userId: $0.userId.uuidString.lowercased(), totalRuns: $0.runs, totalTokens: $0.totalTokens, totalCostCents: Money.cents($0.costCents))
        }, forKey: .topUsers)
        try container.encode(modelsBreakdown, forKey: .modelsBreakdown)
        try container.encode(runsPerDay, forKey: .runsPerDay)
        try container.encode(costPerModel.mapValues(Money.cents), forKey: .costPerModelCents)
    }
}
