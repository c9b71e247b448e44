import AsyncHTTPClient
import Foundation
import HearthGoogle
import HearthReadModels
import HearthRuntime
import HearthStore
import Logging

// calendar-sync: mirrors the household calendar into linked Google calendars (one way). Its
// google_sync consumer is built here rather than listed in ReadModelCatalogue, because it calls
// Google and must never be replayed by `hearthctl replay`.

let service = "calendar-sync"
let host: ServiceHost
do {
    let settings = try ServiceSettings.load(service: service, defaultPort: 8084)
    LoggingSetup.bootstrap(service: service, level: settings.logLevel, format: settings.logFormat)
    MetricsSetup.bootstrap()
    let environment = settings.environment
    let google = GoogleSettings(environment: environment.values)
    let secrets = try SecretBox.load(
        environment: environment.values, runDirectory: settings.runDirectory, allowGenerated: settings.mode != .production)
    var logger = Logger(label: "hearth.\(service)")
    logger.logLevel = settings.logLevel
    var projections: [any Projection] = []
    let alerts = LinkAlerts()
    if let secrets, google.isConfigured {
        let tokens = AccessTokens(endpoint: GoogleTokenEndpoint(settings: google, http: .shared), secrets: secrets, logger: logger)
        let backoffMs = try environment.int("HEARTH_GOOGLE_BACKOFF_MS", default: 500, range: 1...60_000)
        let capMs = try environment.int("HEARTH_GOOGLE_BACKOFF_CAP_MS", default: 60_000, range: 1...3_600_000)
        projections.append(GoogleSyncProjection(
            calendar: GoogleCalendarClient(
                http: .shared, baseURL: google.calendarAPIURL, tokens: tokens, backoffBase: .milliseconds(backoffMs),
                backoffCap: .milliseconds(max(capMs, backoffMs)), logger: logger),
            tokens: tokens, alerts: alerts))
    } else {
        logger.warning("Google sync is off: set HEARTH_GOOGLE_CLIENT_ID, HEARTH_GOOGLE_CLIENT_SECRET and HEARTH_SECRETS_KEY")
    }
    host = try ServiceHost(settings: settings, owner: .calendarSync, projections: projections)
    alerts.attach(host.publisher)
} catch {
    FileHandle.standardError.write(Data("\(service): cannot start: \(error)\n".utf8))
    exit(78)  // EX_CONFIG
}
await host.run()
