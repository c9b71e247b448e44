import AsyncHTTPClient
import Crypto
import Foundation
import HearthEvents
import HearthGoogle
import HearthRuntime
import HearthStore
import Hummingbird
import Logging

/// The OAuth `state` of a connect: the user it was issued to, the household whose calendar the
/// link syncs (a user may belong to several; the connect request chose), and until when, HMAC-signed with a
/// key derived from `HEARTH_SECRETS_KEY`. The callback arrives from the user's browser without
/// a bearer token; the signed state is what binds the grant to the user who asked for it.
struct GoogleOAuthState: Sendable {
    let key: SymmetricKey
    static let lifetime: TimeInterval = 600

    struct Issued: Equatable {
        let user: UUID
        let household: UUID?
    }

    func issue(for user: UUID, household: UUID?, now: Date = Date()) -> String {
        let nonce = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }.base64URL
        let householdField = household?.uuidString.lowercased() ?? "-"
        let payload = Data(
            "\(user.uuidString.lowercased()).\(Int(now.timeIntervalSince1970 + Self.lifetime)).\(nonce).\(householdField)".utf8).base64URL
        return "\(payload).\(Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)).base64URL)"
    }

    /// Whom (and for which household) the state was issued, if it is authentic and unexpired.
    /// States of three fields were issued before households were named, for 10 minutes.
    func verify(_ state: String, now: Date = Date()) -> Issued? {
        let parts = state.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let mac = Data(base64URL: String(parts[1])),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(parts[0].utf8), using: key),
              let payload = Data(base64URL: String(parts[0]))
        else { return nil }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: ".")
        guard fields.count == 3 || fields.count == 4, let user = UUID(uuidString: String(fields[0])), let expiry = Int(fields[1]),
              now.timeIntervalSince1970 <= TimeInterval(expiry)
        else { return nil }
        return Issued(user: user, household: fields.count == 4 ? UUID(uuidString: String(fields[3])) : nil)
    }
}

extension Data {
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}

/// `GET /v1/integrations/google/connect`, `GET /v1/integrations/google/callback` and
/// `DELETE /v1/integrations/google`: linking a user's Google calendar for one-way sync.
struct GoogleIntegrationRoutes: Sendable {
    let settings: GoogleSettings
    let secrets: SecretBox?
    let tokens: GoogleTokenEndpoint
    let credentials: GoogleCredentialStore
    let publisher: EventPublisher
    let membership: MembershipReadModel
    let logger: Logger

    struct AuthorizeURL: ResponseEncodable {
        let authorizeURL: String
        enum CodingKeys: String, CodingKey { case authorizeURL = "authorize_url" }
    }

    struct Connected: ResponseEncodable {
        let connected: Bool
        @LowercaseID var userId: UUID
        let calendarId: String
        enum CodingKeys: String, CodingKey {
            case connected
            case userId = "user_id"
            case calendarId = "calendar_id"
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("integrations/google/connect") { request, context in try await connect(request, context: context) }
        routes.delete("integrations/google") { request, context in try await disconnect(request, context: context) }
    }

    /// Google redirects the browser here; no bearer token, the signed state names the user.
    func registerOpen(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("integrations/google/callback") { request, context in try await callback(request, context: context) }
    }

    private func configured() throws -> (SecretBox, GoogleOAuthState) {
        guard settings.isConfigured, let secrets else {
            throw APIError(.serviceUnavailable, code: "google_not_configured",
                           message: "Google linking needs HEARTH_GOOGLE_CLIENT_ID, HEARTH_GOOGLE_CLIENT_SECRET and HEARTH_SECRETS_KEY")
        }
        return (secrets, GoogleOAuthState(key: secrets.derivedKey(purpose: "hearth google oauth state v1")))
    }

    func connect(_ request: Request, context: HearthRequestContext) async throws -> AuthorizeURL {
        let user = try context.authenticatedUser()
        let (_, state) = try configured()
        guard var components = URLComponents(string: settings.authorizeURL) else {
            throw APIError(.internalServerError, code: "internal", message: "the Google authorize URL is not a URL")
        }
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "client_id", value: settings.clientId),
            URLQueryItem(name: "redirect_uri", value: settings.redirectURI),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "scope", value: settings.scope),
            // A refresh token is only issued for offline access, and only again on consent.
            URLQueryItem(name: "access_type", value: "offline"),
            URLQueryItem(name: "prompt", value: "consent"),
            URLQueryItem(name: "include_granted_scopes", value: "true"),
            URLQueryItem(name: "state", value: state.issue(for: user, household: try await membership.household(of: user, for: request))),
        ]
        return AuthorizeURL(authorizeURL: components.url!.absoluteString)
    }

    func callback(_ request: Request, context: HearthRequestContext) async throws -> Connected {
        let (secrets, state) = try configured()
        let query = request.uri.queryParameters
        if let refused = query.get("error") {
            throw APIError.invalid("error", "Google refused the link: \(refused)")
        }
        guard let stateText = query.get("state"), let issued = state.verify(stateText) else {
            throw APIError.invalid("state", "state is missing, forged or expired; start again at /v1/integrations/google/connect")
        }
        let user = issued.user
        guard let code = query.get("code"), !code.isEmpty else { throw APIError.invalid("code", "code is required") }
        let grant: TokenGrant
        do {
            grant = try await tokens.exchange(code: code)
        } catch TokenEndpointError.invalidGrant {
            throw APIError.invalid("code", "the authorization code is invalid or was already used")
        } catch {
            logger.warning("google code exchange failed", metadata: ["error": "\(error)", "correlation_id": "\(context.correlationId)"])
            throw APIError(.badGateway, code: "google_unavailable", message: "Google's token endpoint did not answer usefully; try again")
        }
        guard let refreshToken = grant.refreshToken else {
            throw APIError(.badGateway, code: "no_refresh_token", message: "Google granted no offline access; connect again and accept access")
        }
        let scope = grant.scope ?? settings.scope
        try await credentials.save(userId: user, sealedRefreshToken: try secrets.seal(refreshToken, context: user.uuidString.lowercased()), scope: scope)
        // The household chosen at connect, if the user still belongs to it.
        var household = issued.household
        if let chosen = household, try await membership.role(of: user, in: chosen) == nil { household = nil }
        let event = GoogleLinkConnected(userId: user, householdId: household, calendarId: settings.calendarId, scope: scope)
        _ = try await publisher.publish(event, correlationId: context.correlationId)
        return Connected(connected: true, userId: user, calendarId: settings.calendarId)
    }

    func disconnect(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        guard let sealed = try await credentials.sealedRefreshToken(of: user) else { throw APIError.notFound("Google link") }
        // Best effort: Google forgets the grant too. The link ends here either way, because the
        // only copy of the refresh token is deleted next.
        if let secrets, let refreshToken = try? secrets.open(sealed, context: user.uuidString.lowercased()) {
            do {
                if try await !tokens.revoke(token: refreshToken) {
                    logger.warning("Google did not confirm the revocation", metadata: ["correlation_id": "\(context.correlationId)"])
                }
            } catch {
                logger.warning("Google revocation failed", metadata: ["error": "\(error)", "correlation_id": "\(context.correlationId)"])
            }
        }
        try await credentials.delete(userId: user)
        _ = try await publisher.publish(GoogleLinkDisconnected(userId: user), correlationId: context.correlationId)
        return Response(status: .noContent)
    }
}
