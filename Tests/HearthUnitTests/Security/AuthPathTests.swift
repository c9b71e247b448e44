@testable import GatewayService
import Testing

@Suite struct AuthPathTests {
    /// The router ignores empty path segments, so every spelling of a sign-in route must count
    /// against the sign-in limit. Renewing and ending a session are no sign-ins: a refresh token
    /// cannot be guessed, and every client behind one address refreshes every 15 minutes.
    @Test func everySpellingOfASignInRouteIsLimitedAsOne() {
        for path in ["/v1/auth/device", "/v1//auth/device", "//v1/auth/apple", "/v1/auth//dev", "/v1///auth/apple"] {
            #expect(RateLimitMiddleware.isAuthPath(path), "\(path)")
        }
        for path in ["/v1/households", "/v1/authors", "/auth/device", "/v2/auth/device", "/v1/auth/refresh", "/v1//auth/logout"] {
            #expect(!RateLimitMiddleware.isAuthPath(path), "\(path)")
        }
    }
}

@Suite struct ClientAddressTests {
    /// A forwarded address counts under one bucket however it is written: a port or another
    /// spelling does not make a fresh one.
    @Test func forwardedAddressesAreCountedInOneCanonicalForm() {
        #expect(ClientAddressResolver.plausibleAddress("203.0.113.7:5678") == "203.0.113.7")
        #expect(ClientAddressResolver.plausibleAddress("203.0.113.7") == "203.0.113.7")
        #expect(ClientAddressResolver.plausibleAddress("2001:DB8::0:1") == ClientAddressResolver.plausibleAddress("2001:db8::1"))
        for junk in ["2130706433", "0x7f.1", "localhost", "1.2.3", "1.2.3.4:5:6", "[::1]:443", "::g"] {
            #expect(ClientAddressResolver.plausibleAddress(junk) == nil, "\(junk)")
        }
    }
}
