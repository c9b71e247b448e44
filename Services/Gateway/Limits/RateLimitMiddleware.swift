import Foundation
import HearthDomain
import HearthRuntime
import HTTPTypes
import Hummingbird

/// Fixed-window limits per client address: one on every API request, and a stricter one that
/// `/v1/auth/*` requests also count against. Answers 429 with `Retry-After`; every limited
/// response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.
///
/// Installed after the ops routes, so `/healthz`, `/readyz` and `/metrics` are never limited.
/// Counting is in memory (`RateLimitLedger`); `RateLimitJanitor` shares the counts with the other
/// instances through Postgres, so a database outage never delays or fails a request.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    static let limitHeader = HTTPField.Name("RateLimit-Limit")!
    static let remainingHeader = HTTPField.Name("RateLimit-Remaining")!
    static let resetHeader = HTTPField.Name("RateLimit-Reset")!
    static let retryAfterHeader = HTTPField.Name("Retry-After")!

    /// Whether `path` is a sign-in route (the API's or the console's) as the router matches it: the router ignores empty
    /// segments (`/v1//auth/device` is `/v1/auth/device`), so the limiter must too.
    static func isAuthPath(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        // Renewing or ending a session is no sign-in (a refresh token cannot be guessed, and every
        // client behind one address refreshes every 15 minutes): the general limit covers them.
        if segments.count >= 3, ["refresh", "logout"].contains(segments[2]) { return false }
        // The console's sign-in (`/admin/sign-in/...`) too: its Apple round trip writes a row.
        if segments.count >= 3, segments[0] == "admin", segments[1] == "sign-in" { return true }
        return segments.count >= 2 && segments[0] == "v1" && segments[1] == "auth"
    }

    let ledger: RateLimitLedger
    let clients: ClientAddressResolver
    let general: FixedWindowRateLimit
    let auth: FixedWindowRateLimit

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = clients.address(of: request, context: context)
        var limits = [("api:\(client)", general)]
        if Self.isAuthPath(request.uri.path) { limits.append(("auth:\(client)", auth)) }
        let now = Date()
        // Both limits use one-minute windows, so one window start serves both.
        let counts = ledger.hit(limits.map(\.0), windowStart: general.windowStart(containing: now))
        let decisions = limits.map { bucket, limit in limit.decision(count: counts[bucket] ?? 1, now: now) }
        guard let decision = RateLimitDecision.mostRestrictive(decisions) else { return try await next(request, context) }
        guard decision.allowed else {
            context.logger.info("rate limited", metadata: ["client": "\(client)", "limit": "\(decision.limit)"])
            throw Self.refusal(decision, message: "too many requests; retry in \(decision.resetAfterSeconds) s")
        }
        var response = try await next(request, context)
        for field in Self.headers(for: decision) { response.headers[field.name] = field.value }
        return response
    }

    /// The 429 of a refused `decision`: its limit headers and `Retry-After`.
    static func refusal(_ decision: RateLimitDecision, message: String) -> APIError {
        var headers = headers(for: decision)
        headers[retryAfterHeader] = String(decision.resetAfterSeconds)
        return APIError(.tooManyRequests, code: "rate_limited", message: message, headers: headers)
    }

    static func headers(for decision: RateLimitDecision) -> HTTPFields {
        [
            limitHeader: String(decision.limit),
            remainingHeader: String(decision.remaining),
            resetHeader: String(decision.resetAfterSeconds),
        ]
    }
}
