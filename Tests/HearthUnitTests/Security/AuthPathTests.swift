@testable import GatewayService
import Testing

@Suite struct AuthPathTests {
    /// The router ignores empty path segments, so every spelling of a sign-in route must count
    /// against the sign-in limit.
    @Test func everySpellingOfASignInRouteIsLimitedAsOne() {
        for path in ["/v1/auth/device", "/v1//auth/device", "//v1/auth/apple", "/v1/auth//dev", "/v1///auth/refresh"] {
            #expect(RateLimitMiddleware.isAuthPath(path), "\(path)")
        }
        for path in ["/v1/households", "/v1/authors", "/auth/device", "/v2/auth/device"] {
            #expect(!RateLimitMiddleware.isAuthPath(path), "\(path)")
        }
    }
}
