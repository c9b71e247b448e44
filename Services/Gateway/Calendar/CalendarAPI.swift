import AsyncHTTPClient
import Foundation
import HearthGoogle
import HearthPrivacy
import HearthRuntime
import Hummingbird

/// The calendar feature of the gateway: entries, feeds and the Google link, built from the host.
struct CalendarAPI: Sendable {
    let events: CalendarRoutes
    let feeds: CalendarFeedRoutes
    let google: GoogleIntegrationRoutes

    static func make(
        host: ServiceHost, membership: MembershipReadModel, consistency: ReadConsistency, publicURL: String?, secrets: SecretBox?
    ) throws -> CalendarAPI {
        let readModel = CalendarReadModel(client: host.postgres, logger: host.logger)
        let google = GoogleSettings(environment: host.settings.environment)
        if !google.isConfigured {
            host.logger.info("HEARTH_GOOGLE_CLIENT_ID/SECRET are not set: Google linking answers 503")
        }
        return CalendarAPI(
            events: CalendarRoutes(publisher: host.publisher, readModel: readModel, membership: membership, consistency: consistency),
            feeds: CalendarFeedRoutes(
                publisher: host.publisher, readModel: readModel, membership: membership, consistency: consistency, publicURL: publicURL,
                trustsHostHeader: host.settings.mode != .production),
            google: GoogleIntegrationRoutes(
                settings: google, secrets: secrets, tokens: GoogleTokenEndpoint(settings: google, http: .shared),
                credentials: GoogleCredentialStore(client: host.postgres, logger: host.logger), publisher: host.publisher,
                membership: membership, redeemed: RedeemedOAuthStates(client: host.postgres, logger: host.logger),
                secureCookies: host.settings.mode == .production, logger: host.logger))
    }

    /// Routes without a bearer token: the feed (its URL is the secret) and the OAuth callback
    /// (its signed state names the user).
    func registerOpen(on routes: some RouterMethods<HearthRequestContext>) {
        feeds.registerOpen(on: routes)
        google.registerOpen(on: routes)
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        events.register(on: routes)
        feeds.register(on: routes)
        google.register(on: routes)
    }
}
