import Foundation

/// What one rate-limit check answered, with everything the `RateLimit-*` and `Retry-After`
/// headers need.
public struct RateLimitDecision: Equatable, Sendable {
    public var allowed: Bool
    public var limit: Int
    public var remaining: Int
    /// Whole seconds until the window ends and the count starts again (at least 1).
    public var resetAfterSeconds: Int

    public init(allowed: Bool, limit: Int, remaining: Int, resetAfterSeconds: Int) {
        self.allowed = allowed
        self.limit = limit
        self.remaining = remaining
        self.resetAfterSeconds = resetAfterSeconds
    }

    /// Of several limits that apply to one request, the one to report: a refusal if any refused
    /// (the one that lasts longest), otherwise the one closest to refusing.
    public static func mostRestrictive(_ decisions: [RateLimitDecision]) -> RateLimitDecision? {
        let refused = decisions.filter { !$0.allowed }
        if !refused.isEmpty { return refused.max { $0.resetAfterSeconds < $1.resetAfterSeconds } }
        return decisions.min { ($0.remaining, -$0.resetAfterSeconds) < ($1.remaining, -$1.resetAfterSeconds) }
    }
}

/// A fixed-window counter: at most `limit` requests per window of `windowSeconds`, windows aligned
/// to the Unix epoch so that every gateway instance counts into the same window.
public struct FixedWindowRateLimit: Equatable, Sendable {
    public var limit: Int
    public var windowSeconds: Int

    public init(limit: Int, windowSeconds: Int = 60) {
        precondition(limit > 0 && windowSeconds > 0)
        self.limit = limit
        self.windowSeconds = windowSeconds
    }

    /// The start of the window `now` falls in.
    public func windowStart(containing now: Date) -> Date {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        let start = seconds - ((seconds % windowSeconds) + windowSeconds) % windowSeconds
        return Date(timeIntervalSince1970: TimeInterval(start))
    }

    /// The decision once this request made the window's count `count` (the request included).
    public func decision(count: Int, now: Date) -> RateLimitDecision {
        let end = windowStart(containing: now).addingTimeInterval(TimeInterval(windowSeconds))
        let reset = max(1, Int(end.timeIntervalSince(now).rounded(.up)))
        return RateLimitDecision(allowed: count <= limit, limit: limit, remaining: max(0, limit - count), resetAfterSeconds: reset)
    }
}
