import Foundation
import HearthAssist
import HearthConfiguration
import HearthDomain
import HearthRuntime
import Logging

/// Everything the gateway reads at start-up beyond `ServiceSettings`. The README's configuration
/// section lists each variable with its default (`ConfigurationDocsTests` holds the two together).
public struct GatewaySettings: Sendable {
    static let appleIssuer = "https://appleid.apple.com"

    var appleJWKSURL: String
    var appleClientId: String?
    /// The Services ID of Sign in with Apple on the web (`HEARTH_APPLE_WEB_CLIENT_ID`): the admin
    /// console's sign-in, whose identity tokens are issued to it rather than to the app.
    var appleWebClientId: String?
    var tokenIssuer: String
    var tokenAudience: String
    /// How long an access token lives (`HEARTH_ACCESS_TOKEN_SECONDS`); a refresh token renews it.
    var tokenLifetime: TimeInterval
    /// How long a refresh token may wait to be used (`HEARTH_REFRESH_TOKEN_DAYS`); each use starts a new one.
    var refreshTokenLifetime: TimeInterval
    var privateKeyFile: String?
    var keyId: String?
    var adminUserIds: Set<UUID>
    var rateLimitPerMinute: Int
    var authRateLimitPerMinute: Int
    /// Proxies whose `X-Forwarded-For` names the client (`HEARTH_TRUSTED_PROXIES`); none: the
    /// socket's peer is the client.
    var trustedProxies: [NetworkRange]
    /// Entries per generation of `HouseholdResponseCache`.
    var householdReadCache: Int
    /// Encoded feed answers (per query) `ActivityFeed` keeps (`HEARTH_ACTIVITY_FEED_CACHE`).
    var activityFeedCache: Int
    /// The `: heartbeat` interval of `GET /v1/chats/{id}/stream` and of the notification stream.
    var chatStreamHeartbeat: Duration
    var notificationsHeartbeat: Duration
    var assist: AssistSettings
    /// How long a deleted account can still be restored before its data is erased.
    var accountDeletionGrace: TimeInterval
    /// How often the eraser looks for accounts whose grace period is over.
    var erasureCheckInterval: Duration
    /// Whether webhooks may target loopback and private addresses (`HEARTH_WEBHOOK_PRIVATE_TARGETS`).
    var webhookPrivateTargets: Bool
    /// Where clients reach the API (`HEARTH_PUBLIC_URL`, no trailing slash): the base of the URLs
    /// the gateway hands out (calendar feeds).
    var publicURL: String?
    /// Browser origins allowed to call the API (`HEARTH_CORS_ORIGINS`, comma-separated); none by default.
    var corsOrigins: Set<String>
    /// New device accounts one client address may create per hour (`HEARTH_DEVICE_SIGNUPS_PER_HOUR`).
    var deviceSignUpsPerHour: Int
    /// Live chat and notification streams one user may hold open on a gateway (`HEARTH_STREAMS_PER_USER`).
    var streamsPerUser: Int
    /// What reads an uploaded daycare sheet (`HEARTH_DAYCARE_IMPORT_PARSER`, see
    /// `DaycareImportReaderSelection`): the rules, or a model with the rules behind it.
    var daycareImportReader: any DaycareReportReader
    /// Who writes wellbeing quizzes and weekly recaps (`HEARTH_WELLBEING_WRITER`): nil for the
    /// offline bank and template, or the router whose synthesis chain does, those behind it.
    var wellbeingWriterRouter: ModelRouter?
    /// How often the wellbeing schedule runs: reflections and nudges due (`HEARTH_WELLBEING_SCHEDULE_SECONDS`).
    var wellbeingScheduleInterval: Duration
    /// Per device (or account) limits of the activity feed: submissions a UTC day
    /// (`HEARTH_ACTIVITY_SUBMISSIONS_PER_DAY`) and feed reads a minute (`HEARTH_ACTIVITY_FEED_POLLS_PER_MIN`).
    var activitySubmissionsPerDay: Int
    var activityFeedPollsPerMinute: Int
    /// Idea requests a device (account) may make a UTC day (`HEARTH_ACTIVITY_IDEAS_PER_DAY`), and
    /// who writes them (`HEARTH_ACTIVITY_IDEAS_WRITER`): nil for the library, or the router whose
    /// synthesis chain does, the library behind it.
    var activityIdeasPerDay: Int
    var activityIdeasRouter: ModelRouter?
    /// How long an admin console session lasts after sign-in (`HEARTH_ADMIN_SESSION_MINUTES`).
    var adminSessionLifetime: TimeInterval
    /// `POST /v1/auth/dev`, and the console's one-time links, exist only in dev and test.
    var devSignInEnabled: Bool
    var runDirectory: String
    var isProduction: Bool

    /// Each origin exactly as a browser sends it: scheme, host and port, no path.
    private static func corsOrigins(_ list: [String]) throws -> Set<String> {
        for origin in list {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty, !origin.hasSuffix("/") else {
                throw ConfigurationError(variable: "HEARTH_CORS_ORIGINS", reason: "expected origins such as https://app.example.com, got \(origin)")
            }
        }
        return Set(list)
    }

    /// Addresses or CIDR ranges: `10.0.0.0/8, 127.0.0.1, fd00::/8`.
    private static func proxies(_ list: [String]) throws -> [NetworkRange] {
        try list.map { text in
            guard let range = NetworkRange(text) else {
                throw ConfigurationError(variable: "HEARTH_TRUSTED_PROXIES", reason: "expected addresses or CIDR ranges such as 10.0.0.0/8, got \(text)")
            }
            return range
        }
    }

    private static func publicURL(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.query == nil else {
            throw ConfigurationError(variable: "HEARTH_PUBLIC_URL", reason: "expected an http(s) URL such as https://api.example.com, got \(text)")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

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
            appleWebClientId: environment.optionalString("HEARTH_APPLE_WEB_CLIENT_ID"),
            tokenIssuer: environment.string("HEARTH_JWT_ISSUER", default: "hearth"),
            tokenAudience: environment.string("HEARTH_JWT_AUDIENCE", default: "hearth-app"),
            tokenLifetime: TimeInterval(try environment.int("HEARTH_ACCESS_TOKEN_SECONDS", default: 900, range: 30...86_400)),
            refreshTokenLifetime: try environment.decimal("HEARTH_REFRESH_TOKEN_DAYS", default: 30, range: 0.001...365) * 86_400,
            privateKeyFile: environment.optionalString("HEARTH_JWT_PRIVATE_KEY_FILE"),
            keyId: environment.optionalString("HEARTH_JWT_KEY_ID"),
            adminUserIds: admins,
            rateLimitPerMinute: try environment.int("HEARTH_RATE_LIMIT_PER_MIN", default: 30, range: 1...10_000_000),
            authRateLimitPerMinute: try environment.int("HEARTH_AUTH_RATE_LIMIT_PER_MIN", default: 10, range: 1...10_000_000),
            trustedProxies: try Self.proxies(environment.list("HEARTH_TRUSTED_PROXIES")),
            householdReadCache: try environment.int("HEARTH_HOUSEHOLD_READ_CACHE", default: 4096, range: 0...1_000_000),
            activityFeedCache: try environment.int("HEARTH_ACTIVITY_FEED_CACHE", default: 1024, range: 0...1_000_000),
            chatStreamHeartbeat: .seconds(try environment.int("HEARTH_CHAT_STREAM_HEARTBEAT_S", default: 15, range: 1...3600)),
            notificationsHeartbeat: .seconds(try environment.int("HEARTH_NOTIFICATIONS_HEARTBEAT_S", default: 15, range: 1...3600)),
            assist: try AssistSettings.load(from: service),
            accountDeletionGrace: try environment.decimal("HEARTH_ACCOUNT_DELETION_GRACE_DAYS", default: 7, range: 0...365) * 86_400,
            erasureCheckInterval: .seconds(try environment.int("HEARTH_ERASURE_CHECK_SECONDS", default: 10, range: 1...86_400)),
            webhookPrivateTargets: try environment.bool("HEARTH_WEBHOOK_PRIVATE_TARGETS", default: false),
            publicURL: try publicURL(environment.trimmed("HEARTH_PUBLIC_URL")),
            corsOrigins: try corsOrigins(environment.list("HEARTH_CORS_ORIGINS")),
            deviceSignUpsPerHour: try environment.int("HEARTH_DEVICE_SIGNUPS_PER_HOUR", default: 20, range: 1...1_000_000),
            streamsPerUser: try environment.int("HEARTH_STREAMS_PER_USER", default: 10, range: 1...10_000),
            daycareImportReader: try DaycareImportReaderSelection.fromEnvironment(environment),
            wellbeingWriterRouter: try WellbeingWriterSelection.router(environment, logger: Logger(label: "hearth.wellbeing")),
            wellbeingScheduleInterval: .seconds(try environment.int("HEARTH_WELLBEING_SCHEDULE_SECONDS", default: 300, range: 1...86_400)),
            activitySubmissionsPerDay: try environment.int("HEARTH_ACTIVITY_SUBMISSIONS_PER_DAY", default: 5, range: 0...1_000_000),
            activityFeedPollsPerMinute: try environment.int("HEARTH_ACTIVITY_FEED_POLLS_PER_MIN", default: 60, range: 1...10_000_000),
            activityIdeasPerDay: try environment.int("HEARTH_ACTIVITY_IDEAS_PER_DAY", default: 20, range: 0...1_000_000),
            activityIdeasRouter: try ActivityIdeasWriterSelection.router(environment, logger: Logger(label: "hearth.activities")),
            adminSessionLifetime: TimeInterval(try environment.int("HEARTH_ADMIN_SESSION_MINUTES", default: 480, range: 1...10_080) * 60),
            devSignInEnabled: service.mode != .production,
            runDirectory: service.runDirectory,
            isProduction: service.mode == .production)
    }
}
