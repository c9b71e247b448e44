import Foundation
import HearthDomain
import HearthRuntime
import Hummingbird

/// Bodies of the sign-in routes.
struct AppleSignInRequest: Decodable {
    var idToken: String
    /// The raw nonce the app generated (it gave Apple its SHA-256): binds the token to this
    /// sign-in, so a token seen elsewhere cannot be replayed.
    var nonce: String?
    /// At sign-up only: `member` (default) or `coach`, and the name a coach must give.
    var role: String?
    var displayName: String?
    enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
        case nonce, role
        case displayName = "display_name"
    }
}

struct DeviceSignInRequest: Decodable {
    var deviceId: String
    enum CodingKeys: String, CodingKey { case deviceId = "device_id" }
}

struct DevSignInRequest: Decodable {
    var name: String
    /// At sign-up only: `member` (default) or `coach`.
    var role: String?
}

struct RefreshRequest: Decodable {
    var refreshToken: String
    enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
}

struct LogoutRequest: Decodable {
    /// Every session of the user, not only this one.
    var everywhere: Bool?
}

/// What every sign-in and refresh answers: a short access token (`jwt`) and the refresh token that
/// renews it, once.
struct SignedIn: ResponseEncodable {
    @LowercaseID var userId: UUID
    let jwt: String
    let expiresAt: Date
    let refreshToken: String
    let refreshExpiresAt: Date
    let tokenType = "Bearer"

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case jwt
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case refreshExpiresAt = "refresh_expires_at"
        case tokenType = "token_type"
    }
}

/// `POST /v1/auth/apple`, `/v1/auth/device`, `/v1/auth/dev` and `/v1/auth/refresh` (open; the
/// refresh token is the credential), `/v1/auth/logout` (behind the bearer check).
struct AuthRoutes: Sendable {
    let apple: AppleIdentityVerifier
    let tokens: HearthTokens
    let sessions: AuthSessions
    let standing: AccountStanding
    let registrar: UserRegistrar
    let devSignInEnabled: Bool
    let deviceSignUps: DeviceSignUpLimit
    let clients: ClientAddressResolver

    func registerOpen(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("auth/apple") { request, context in try await signInWithApple(request, context: context) }
        routes.post("auth/device") { request, context in try await signInAsDevice(request, context: context) }
        // Registered in every mode so the route table (and OpenAPI) does not depend on it; it
        // answers 404 outside dev and test, as if it did not exist.
        routes.post("auth/dev") { request, context in try await signInForDevelopment(request, context: context) }
        routes.post("auth/refresh") { request, context in try await refresh(request, context: context) }
    }

    func registerAuthenticated(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("auth/logout") { request, context in try await logout(request, context: context) }
    }

    /// Uses a refresh token once: a new access token and the refresh token that replaces it, both
    /// of the same session (the access token keeps the sign-in's time: refreshing is not signing
    /// in again). A refresh token used before ends its session.
    func refresh(_ request: Request, context: HearthRequestContext) async throws -> SignedIn {
        let body = try await JSONRequestBody.decode(RefreshRequest.self, from: request, context: context)
        guard let presented = RefreshToken(presented: body.refreshToken) else {
            throw Self.refusedRefresh("refresh_token is not a Hearth refresh token")
        }
        // Asking to delete the account ends every earlier session, refresh included.
        let standing = standing
        switch try await sessions.refresh(presented, endedBefore: { user in try await standing.standing(of: user).sessionsValidAfter }) {
        case .refused(let reason):
            throw Self.refusedRefresh(reason)
        case .reused:
            throw Self.refusedRefresh("this refresh token was already used, so the session has ended everywhere; sign in again")
        case .rotated(let session, let next, let refreshExpiresAt):
            let issued = try await tokens.issue(for: session)
            return SignedIn(
                userId: session.userId, jwt: issued.jwt, expiresAt: issued.expiresAt, refreshToken: next.text, refreshExpiresAt: refreshExpiresAt)
        }
    }

    /// Ends the token's session (or every session of its user): its refresh token stops working at
    /// once, its access tokens at their next request on any gateway.
    func logout(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decodeIfPresent(LogoutRequest.self, from: request, context: context)
        if body?.everywhere == true {
            try await sessions.endAll(of: user, because: .logoutEverywhere)
        } else if let session = context.sessionId {
            try await sessions.end(session, of: user, because: .logout)
        } else {
            throw APIError.invalid("everywhere", "this token belongs to no session; only {\"everywhere\": true} can sign it out")
        }
        return Response(status: .noContent)
    }

    static func refusedRefresh(_ message: String) -> APIError {
        APIError(.unauthorized, code: "invalid_refresh_token", message: message)
    }

    func signInWithApple(_ request: Request, context: HearthRequestContext) async throws -> SignedIn {
        let body = try await JSONRequestBody.decode(AppleSignInRequest.self, from: request, context: context)
        let subject: String
        do {
            subject = try await apple.subject(of: body.idToken, nonce: body.nonce)
        } catch let rejection as TokenRejection {
            throw BearerAuthentication.unauthorized("Apple identity token refused: \(rejection)")
        } catch is AppleSignInNotConfigured {
            throw APIError(.serviceUnavailable, code: "apple_sign_in_unavailable", message: "Sign in with Apple is not configured on this server")
        } catch let error as AppleKeysUnavailable {
            context.logger.error("cannot verify an Apple token", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "apple_sign_in_unavailable", message: "Apple's signing keys cannot be fetched; retry shortly")
        } catch {
            throw BearerAuthentication.unauthorized("Apple identity token refused")
        }
        let user = UserIdentity.userId(provider: .apple, subject: subject)
        var displayName: String?
        if let given = body.displayName {
            do {
                displayName = try UserProfileRules.displayName(given)
            } catch let violation as FieldViolation {
                throw APIError.invalid(violation.field, violation.message)
            }
        }
        try await registrar.ensureRegistered(user, provider: .apple, subject: subject, displayName: displayName, role: body.role, context: context)
        return try await signedIn(user)
    }

    func signInAsDevice(_ request: Request, context: HearthRequestContext) async throws -> SignedIn {
        let body = try await JSONRequestBody.decode(DeviceSignInRequest.self, from: request, context: context)
        let subject: String
        do {
            subject = try UserIdentity.deviceSubject(body.deviceId)
        } catch let violation as FieldViolation {
            throw APIError.invalid(violation.field, violation.message)
        }
        let user = UserIdentity.userId(provider: .device, subject: subject)
        if try await !registrar.users.exists(user), let retryAfter = deviceSignUps.take(clients.address(of: request, context: context)) {
            throw APIError(
                .tooManyRequests, code: "too_many_sign_ups",
                message: "too many new device accounts from this address; at most \(deviceSignUps.perHour) an hour",
                headers: [.retryAfter: String(retryAfter)])
        }
        // No subject in the event: an anonymous user's device id stays out of the log.
        try await registrar.ensureRegistered(user, provider: .device, subject: nil, displayName: nil, context: context)
        return try await signedIn(user)
    }

    func signInForDevelopment(_ request: Request, context: HearthRequestContext) async throws -> SignedIn {
        guard devSignInEnabled else { throw APIError(.notFound, code: "not_found", message: "no such route") }
        let body = try await JSONRequestBody.decode(DevSignInRequest.self, from: request, context: context)
        let name: String
        do {
            name = try UserIdentity.devName(body.name)
        } catch let violation as FieldViolation {
            throw APIError.invalid(violation.field, violation.message)
        }
        let subject = UserIdentity.devSubject(forName: name)
        let user = UserIdentity.userId(provider: .dev, subject: subject)
        try await registrar.ensureRegistered(user, provider: .dev, subject: subject, displayName: name, role: body.role, context: context)
        return try await signedIn(user)
    }

    /// A sign-in just happened: a new session, its first access and refresh tokens.
    private func signedIn(_ user: UUID) async throws -> SignedIn {
        let opened = try await sessions.open(for: user)
        let issued = try await tokens.issue(for: opened.session)
        return SignedIn(
            userId: user, jwt: issued.jwt, expiresAt: issued.expiresAt, refreshToken: opened.refresh.text, refreshExpiresAt: opened.expiresAt)
    }
}
