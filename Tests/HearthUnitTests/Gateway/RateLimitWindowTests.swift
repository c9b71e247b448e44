import Foundation
import HearthDomain
import Testing

@Suite struct RateLimitWindowTests {
    let limit = FixedWindowRateLimit(limit: 30)

    @Test func windowsAreAlignedToTheMinute() {
        let now = Date(timeIntervalSince1970: 1_750_000_123.75)
        #expect(limit.windowStart(containing: now) == Date(timeIntervalSince1970: 1_750_000_080))
        #expect(limit.windowStart(containing: Date(timeIntervalSince1970: 1_750_000_080)) == Date(timeIntervalSince1970: 1_750_000_080))
        #expect(limit.windowStart(containing: Date(timeIntervalSince1970: 1_750_000_139.999)) == Date(timeIntervalSince1970: 1_750_000_080))
    }

    @Test func theThirtyFirstRequestIsRefused() {
        let now = Date(timeIntervalSince1970: 1_750_000_100.2)  // 20.2 s into its window
        let thirtieth = limit.decision(count: 30, now: now)
        #expect(thirtieth == RateLimitDecision(allowed: true, limit: 30, remaining: 0, resetAfterSeconds: 40))
        let thirtyFirst = limit.decision(count: 31, now: now)
        #expect(thirtyFirst == RateLimitDecision(allowed: false, limit: 30, remaining: 0, resetAfterSeconds: 40))
        #expect(limit.decision(count: 1, now: now).remaining == 29)
    }

    @Test func resetIsAlwaysAtLeastOneSecond() {
        #expect(limit.decision(count: 5, now: Date(timeIntervalSince1970: 1_750_000_139.9)).resetAfterSeconds == 1)
        #expect(limit.decision(count: 5, now: Date(timeIntervalSince1970: 1_750_000_080)).resetAfterSeconds == 60)
    }

    @Test func theStricterOfTwoLimitsIsReported() {
        let general = RateLimitDecision(allowed: true, limit: 30, remaining: 20, resetAfterSeconds: 12)
        let auth = RateLimitDecision(allowed: true, limit: 10, remaining: 2, resetAfterSeconds: 12)
        #expect(RateLimitDecision.mostRestrictive([general, auth]) == auth)
        let refused = RateLimitDecision(allowed: false, limit: 10, remaining: 0, resetAfterSeconds: 12)
        #expect(RateLimitDecision.mostRestrictive([general, refused]) == refused)
        #expect(RateLimitDecision.mostRestrictive([]) == nil)
    }
}
