import AsyncHTTPClient
import Crypto
import Foundation
import HearthEvents
import HearthGoogle
import HearthPrivacy
import HearthRuntime
import HearthStore
import Hummingbird
import Logging
import PostgresNIO

/// The OAuth `state` of a connect: the user it was issued to, the household whose calendar the
/// link syncs (a user may belong to several; the connect request chose), until when, a nonce
/// (a state is redeemed once), and the digest of the browser binding: a random value `/connect`
/// sets as an HttpOnly cookie, which the callback must bring back. HMAC-signed with a key derived
/// from `HEARTH_SECRETS_KEY`. The callback arrives from the user's browser without a bearer token;
/// the signed state binds the grant to the user who asked for it, and the cookie to the browser
/// that asked — a state lured into another browser (OAuth CSRF) links nothing.
struct GoogleOAuthState: Sendable {
    let key: SymmetricKey
    static let lifetime: TimeInterval = 600

    struct Issued: Equatable {
        let user: UUID
        let household: UUID?
        let nonce: String
        let binding: String
    }

    /// A state and the browser binding its cookie carries.
    func issue(for user: UUID, household: UUID?, now: Date = Date()) -> (state: String, binding: String) {
        let nonce = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }.base64URL
        let binding = SecretToken.random()
        let householdField = household?.uuidString.lowercased() ?? "-"
        let payload = Data(
            "\(user.uuidString.lowercased()).\(Int(now.timeIntervalSince1970 + Self.lifetime)).\(nonce).\(householdField).\(Self.digest(binding))".utf8
        ).base64URL
        return ("\(payload).\(Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)).base64URL)", binding)
    }

    static func digest(_ binding: String) -> String { Hex.encode(SHA256.hash(data: Data(binding.utf8))) }

    /// Whom (and for which household) the state was issued, if it is authentic and unexpired.
    func verify(_ state: String, now: Date = Date()) -> Issued? {
        let parts = state.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let mac = Data(base64URL: String(parts[1])),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(parts[0].utf8), using: key),
              let payload = Data(base64URL: String(parts[0]))
        else { return nil }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: ".")
        guard fields.count == 5, let user = UUID(uuidString: String(fields[0])), let expiry = Int(fields[1]),
              now.timeIntervalSince1970 <= TimeInterval(expiry)
        else { return nil }
        return Issued(user: user, household: UUID(uuidString: String(fields[3])), nonce: String(fields[2]), binding: String(fields[4]))
    }

    /// Whether the browser's cookie is the one the state was issued with.
    static func matches(_ issued: Issued, cookie: String?) -> Bool {
        guard let cookie, !cookie.isEmpty else { return false }
        let presented = Array(digest(cookie).utf8), expected = Array(issued.binding.utf8)
        guard presented.count == expected.count else { return false }
        return zip(presented, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The states already redeemed (`google_oauth_states_used`): the first redemption wins, in one
/// statement, so two callbacks racing with one state link once.
struct RedeemedOAuthStates: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// True the first time a nonce is redeemed, false ever after.
    func redeem(_ nonce: String) async throws -> Bool {
        // One round trip: the sweep of expired nonces rides along with the redemption.
        let rows = try await client.query(
            """
            WITH swept AS (
                DELETE FROM google_oauth_states_used WHERE used_at < now() - \(Int(GoogleOAuthState.lifetime * 2)) * interval '1 second'
            )
            INSERT INTO google_oauth_states_used (nonce) VALUES (\(nonce)) ON CONFLICT (nonce) DO NOTHING RETURNING nonce
            """, logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
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
    let redeemed: RedeemedOAuthStates
    /// Outside development the binding cookie is `Secure`.
    let secureCookies: Bool
    let logger: Logger

    /// The browser binding of a connect, sent back to the callback only.
    static let bindingCookie = "hearth_google_oauth"
    static let callbackPath = "/v1/integrations/google/callback"

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

    func connect(_ request: Request, context: HearthRequestContext) async throws -> Response {
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
        ]
        let issued = state.issue(for: user, household: try await membership.household(of: user, for: request))
        components.queryItems?.append(URLQueryItem(name: "state", value: issued.state))
        let response = try AuthorizeURL(authorizeURL: components.url!.absoluteString).response(from: request, context: context)
        return Self.setting(bindingCookie(issued.binding, maxAge: Int(GoogleOAuthState.lifetime)), on: response)
    }

    /// The binding cookie, scoped to the callback. SameSite=Lax: the callback is a top-level
    /// navigation from Google, which Strict would strip. An empty value with max-age 0 clears it.
    private func bindingCookie(_ value: String, maxAge: Int) -> String {
        "\(Self.bindingCookie)=\(value); Path=\(Self.callbackPath); Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secureCookies ? "; Secure" : "")
    }

    private static func setting(_ cookie: String, on response: Response) -> Response {
        var headers = response.headers
        headers[.setCookie] = cookie
        return Response(status: response.status, headers: headers, body: response.body)
    }

    /// The end of the dance in the browser: with `HEARTH_GOOGLE_RETURN_URL` a 303 to it with the
    /// outcome (`google=connected`, or `google=error&reason=<code>`), else the JSON answer. The
    /// binding cookie is cleared either way.
    func callback(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let clear = bindingCookie("", maxAge: 0)
        do {
            let connected = try await link(request, context: context)
            if let target = returning([.init(name: "google", value: "connected")]) { return Self.redirect(to: target, clearing: clear) }
            return Self.setting(clear, on: try connected.response(from: request, context: context))
        } catch let error as APIError {
            if let target = returning([.init(name: "google", value: "error"), .init(name: "reason", value: error.code)]) {
                return Self.redirect(to: target, clearing: clear)
            }
            throw error
        }
    }

    private func returning(_ items: [URLQueryItem]) -> String? {
        guard let base = settings.returnURL, var components = URLComponents(string: base) else { return nil }
        components.queryItems = (components.queryItems ?? []) + items
        return components.url?.absoluteString
    }

    private static func redirect(to target: String, clearing cookie: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = target
        headers[.cacheControl] = "no-store"
        return setting(cookie, on: Response(status: .seeOther, headers: headers))
    }

    private func link(_ request: Request, context: HearthRequestContext) async throws -> Connected {
        let (secrets, state) = try configured()
        let query = request.uri.queryParameters
        if let refused = query.get("error") {
            throw APIError.invalid("error", "Google refused the link: \(refused)")
        }
        guard let stateText = query.get("state"), let issued = state.verify(stateText) else {
            throw APIError.invalid("state", "state is missing, forged or expired; start again at /v1/integrations/google/connect")
        }
        guard GoogleOAuthState.matches(issued, cookie: Self.cookie(Self.bindingCookie, in: request)) else {
            throw APIError.invalid("state", "this link was not started in this browser; start again at /v1/integrations/google/connect")
        }
        guard try await redeemed.redeem(issued.nonce) else {
            throw APIError.invalid("state", "this state was already used; start again at /v1/integrations/google/connect")
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

    /// A cookie's value from the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == name { return parts[1] }
            }
        }
        return nil
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
