import AsyncHTTPClient
import Foundation
import HearthGoogle
import HearthPrivacy
import HearthRuntime
import HearthStore
import Logging

/// The calendar-sync executable: mirrors the household calendar into linked Google calendars
/// (one way). Its google_sync consumer is not in hearthctl's catalogue of read models: it calls
/// Google and must never be replayed by `hearthctl replay`.
public enum CalendarSyncExecutable: HearthExecutable {
    public static let name = "calendar-sync"
    public static let defaultPort = 8084
    public static var migrationsFolder: URL { (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Migrations") }

    public static func settings(from common: ServiceSettings) throws -> CalendarSyncSettings {
        try CalendarSyncSettings.load(from: common)
    }

    public static func projections(settings: CalendarSyncSettings, publisher: EventPublisher) throws -> [any Projection] {
        try googleSync(settings: settings, publisher: publisher)
    }

    /// The Google mirror, when an OAuth client and the secrets key are configured; none otherwise.
    static func googleSync(settings: CalendarSyncSettings, publisher: EventPublisher) throws -> [any Projection] {
        var logger = Logger(label: "hearth.\(name)")
        logger.logLevel = settings.logLevel
        guard let secrets = settings.secrets, settings.google.isConfigured else {
            logger.warning("Google sync is off: set HEARTH_GOOGLE_CLIENT_ID, HEARTH_GOOGLE_CLIENT_SECRET and HEARTH_SECRETS_KEY")
            return []
        }
        let tokens = AccessTokens(endpoint: GoogleTokenEndpoint(settings: settings.google, http: .shared), secrets: secrets, logger: logger)
        return [GoogleSyncProjection(
            calendar: GoogleCalendarClient(
                http: .shared, baseURL: settings.google.calendarAPIURL, tokens: tokens, backoffBase: settings.backoffBase,
                backoffCap: settings.backoffCap, logger: logger),
            tokens: tokens, alerts: LinkAlerts(publisher: publisher))]
    }
}

/// Everything calendar-sync reads beyond `ServiceSettings`: the Google client and endpoints
/// (`GoogleSettings`, shared with the gateway's linking routes), the key that opens stored refresh
/// tokens, and the back-off on Google's 429 and 5xx answers.
public struct CalendarSyncSettings: Sendable {
    var google: GoogleSettings
    var secrets: SecretBox?
    var backoffBase: Duration
    var backoffCap: Duration
    var logLevel: Logger.Level

    static func load(from service: ServiceSettings) throws -> CalendarSyncSettings {
        let environment = service.environment
        let google = GoogleSettings(environment: environment)
        let secrets = try SecretBox.load(environment: environment, runDirectory: service.runDirectory, allowGenerated: service.mode != .production)
        // The back-off matters only to a running sync: with Google off it is not read, so a stray
        // value there does not stop a calendar-sync that has nothing to do.
        var backoffMs = 500
        var capMs = 60_000
        if secrets != nil, google.isConfigured {
            backoffMs = try environment.int("HEARTH_GOOGLE_BACKOFF_MS", default: backoffMs, range: 1...60_000)
            capMs = try environment.int("HEARTH_GOOGLE_BACKOFF_CAP_MS", default: capMs, range: 1...3_600_000)
        }
        return CalendarSyncSettings(
            google: google, secrets: secrets, backoffBase: .milliseconds(backoffMs), backoffCap: .milliseconds(max(capMs, backoffMs)),
            logLevel: service.logLevel)
    }
}
