import Foundation
import HearthRuntime

/// What the gateway reads at start-up beyond `ServiceSettings`. Variables and defaults:
///
/// | variable | default |
/// |---|---|
/// | HEARTH_APPLE_JWKS_URL | https://appleid.apple.com/auth/keys |
/// | HEARTH_APPLE_CLIENT_ID | unset: Sign in with Apple answers 503 |
/// | HEARTH_JWT_ISSUER / HEARTH_JWT_AUDIENCE | hearth / hearth-app |
/// | HEARTH_JWT_PRIVATE_KEY_FILE | required in production; dev/test generate one under $HEARTH_RUN_DIR/keys |
/// | HEARTH_JWT_KEY_ID | derived from the public key |
/// | HEARTH_ADMIN_USER_IDS | none (comma-separated user ids) |
/// | HEARTH_RATE_LIMIT_PER_MIN / HEARTH_AUTH_RATE_LIMIT_PER_MIN | 30 / 10 |
/// | HEARTH_TRUST_PROXY | false: X-Forwarded-For is ignored |
/// | HEARTH_HOUSEHOLD_READ_CACHE | 4096 household answers kept until the household read models change; 0: off |
struct GatewaySettings: Sendable {
    static let appleIssuer = "https://appleid.apple.com"

    var appleJWKSURL: String
    var appleClientId: String?
    var tokenIssuer: String
    var tokenAudience: String
    var tokenLifetime: TimeInterval
    var privateKeyFile: String?
    var keyId: String?
    var adminUserIds: Set<UUID>
    var rateLimitPerMinute: Int
    var authRateLimitPerMinute: Int
    var trustProxy: Bool
    /// Entries per generation of `HouseholdResponseCache`.
    var householdReadCache: Int
    /// `POST /v1/auth/dev` exists only in dev and test.
    var devSignInEnabled: Bool
    var runDirectory: String
    var isProduction: Bool

    static func load(from service: ServiceSettings) throws -> GatewaySettings {
        let environment = service.environment
        var admins = Set<UUID>()
        for text in environment.list("HEARTH_ADMIN_USER_IDS") {
            guard let id = UUID(uuidString: text) else {
                throw ConfigurationError(variable: "HEARTH_ADMIN_USER_IDS", reason: "expected comma-separated user ids (UUIDs), got \(text)")
            }
            admins.insert(id)
        }
        let jwksURL = environment.string("HEARTH_APPLE_JWKS_URL", default: "https://appleid.apple.com/auth/keys")
        guard let parsed = URL(string: jwksURL), ["http", "https"].contains(parsed.scheme ?? "") else {
            throw ConfigurationError(variable: "HEARTH_APPLE_JWKS_URL", reason: "expected an http(s) URL, got \(jwksURL)")
        }
        return GatewaySettings(
            appleJWKSURL: jwksURL,
            appleClientId: environment.optionalString("HEARTH_APPLE_CLIENT_ID"),
            tokenIssuer: environment.string("HEARTH_JWT_ISSUER", default: "hearth"),
            tokenAudience: environment.string("HEARTH_JWT_AUDIENCE", default: "hearth-app"),
            tokenLifetime: 24 * 3600,
            privateKeyFile: environment.optionalString("HEARTH_JWT_PRIVATE_KEY_FILE"),
            keyId: environment.optionalString("HEARTH_JWT_KEY_ID"),
            adminUserIds: admins,
            rateLimitPerMinute: try environment.int("HEARTH_RATE_LIMIT_PER_MIN", default: 30, range: 1...10_000_000),
            authRateLimitPerMinute: try environment.int("HEARTH_AUTH_RATE_LIMIT_PER_MIN", default: 10, range: 1...10_000_000),
            trustProxy: try environment.bool("HEARTH_TRUST_PROXY", default: false),
            householdReadCache: try environment.int("HEARTH_HOUSEHOLD_READ_CACHE", default: 4096, range: 0...1_000_000),
            devSignInEnabled: service.mode != .production,
            runDirectory: service.runDirectory,
            isProduction: service.mode == .production)
    }
}
