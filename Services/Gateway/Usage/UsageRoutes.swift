import Foundation
import HearthDomain
import HearthRuntime
import Hummingbird

/// `GET /v1/users/{user_id}/usage` (the user themself, or an administrator), and the admin
/// views `GET /v1/admin/stats` and `GET /v1/admin/dashboard`.
struct UsageRoutes: Sendable {
    let usage: UsageReadModel
    let quota: MonthlyQuota
    let admins: Set<UUID>

    static let allowedDays = 1...365
    static let topUserCount = 10

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("users/:user_id/usage") { request, context in try await userUsage(request, context: context) }
    }

    /// Registered on the group that only administrators pass.
    func registerAdmin(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("stats") { request, _ in try await stats(days: Self.days(request)) }
        routes.get("dashboard") { request, _ in try await dashboard(request) }
    }

    func userUsage(_ request: Request, context: HearthRequestContext) async throws -> UserUsageReport {
        let caller = try context.authenticatedUser()
        let text = context.parameters.get("user_id") ?? ""
        guard let user = text == "me" ? caller : UUID(uuidString: text) else {
            throw APIError.invalid("user_id", "the user id in the path must be a UUID or \"me\"")
        }
        // Someone else's usage is nobody's business but an administrator's; a 404 does not
        // confirm that the id exists.
        guard user == caller || admins.contains(caller) else { throw APIError.notFound("user") }
        let days = try Self.days(request)
        async let totals = usage.totals(days: days, user: user)
        async let models = usage.models(days: days, user: user)
        let today = CalendarDay(Date(), in: .gmt)
        let used = try await quota.used(by: user, today: today)
        let limit = try await quota.limit(for: user)
        return UserUsageReport(
            userId: user, periodDays: days, totals: try await totals, modelsUsed: try await models,
            quota: .init(
                quota: limit, used: used, remaining: max(0, limit - used),
                resetDate: MonthlyQuota.resetDate(after: today).isoDate))
    }

    func stats(days: Int) async throws -> AdminStatsReport {
        async let totals = usage.totals(days: days)
        async let models = usage.models(days: days)
        async let top = usage.topUsers(days: days, limit: Self.topUserCount)
        async let active = usage.activeUsers(days: days)
        async let registered = usage.registeredUsers()
        async let perDay = usage.runsPerDay(days: days)
        async let costs = usage.costPerModel(days: days)
        return AdminStatsReport(
            periodDays: days, totalUsers: try await registered, activeUsers: try await active, totals: try await totals,
            topUsers: try await top, modelsBreakdown: try await models, runsPerDay: try await perDay, costPerModel: try await costs)
    }

    func dashboard(_ request: Request) async throws -> Response {
        let days = try Self.days(request)
        let page = DashboardPage(stats: try await stats(days: days), generatedAt: Date()).html
        return Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    static func days(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("days") else { return 30 }
        guard let days = Int(text), allowedDays.contains(days) else {
            throw APIError.invalid("days", "days must be a whole number in \(allowedDays.lowerBound)...\(allowedDays.upperBound)")
        }
        return days
    }
}
