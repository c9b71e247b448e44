import Foundation
import HearthConfiguration

/// Where Hearth talks to Google and as whom. Every endpoint is configurable so tests (and
/// staging) can point at a fake.
public struct GoogleSettings: Sendable {
    public var clientId: String?
    public var clientSecret: String?
    public var redirectURI: String
    public var authorizeURL: String
    public var tokenURL: String
    public var revokeURL: String
    /// Base of the Calendar API v3 (`…/calendar/v3`).
    public var calendarAPIURL: String
    public var scope: String
    public var calendarId: String
    /// Where the OAuth callback sends the browser with the outcome (`?google=connected` or
    /// `?google=error&reason=…`); nil: the callback answers JSON (development, tests).
    public var returnURL: String?

    public static let defaultScope = "https://www.googleapis.com/auth/calendar.events"

    public init(environment: EnvironmentReader) {
        func value(_ name: String) -> String? { environment.trimmed(name) }
        clientId = value("HEARTH_GOOGLE_CLIENT_ID")
        clientSecret = value("HEARTH_GOOGLE_CLIENT_SECRET")
        redirectURI = value("HEARTH_GOOGLE_REDIRECT_URI") ?? "http://127.0.0.1:8080/v1/integrations/google/callback"
        authorizeURL = value("HEARTH_GOOGLE_AUTHORIZE_URL") ?? "https://accounts.google.com/o/oauth2/v2/auth"
        tokenURL = value("HEARTH_GOOGLE_TOKEN_URL") ?? "https://oauth2.googleapis.com/token"
        revokeURL = value("HEARTH_GOOGLE_REVOKE_URL") ?? "https://oauth2.googleapis.com/revoke"
        calendarAPIURL = value("HEARTH_GOOGLE_CALENDAR_URL") ?? "https://www.googleapis.com/calendar/v3"
        scope = value("HEARTH_GOOGLE_SCOPE") ?? Self.defaultScope
        calendarId = value("HEARTH_GOOGLE_CALENDAR_ID") ?? "primary"
        returnURL = value("HEARTH_GOOGLE_RETURN_URL")
    }

    /// Linking needs an OAuth client.
    public var isConfigured: Bool { clientId != nil && clientSecret != nil }
}
