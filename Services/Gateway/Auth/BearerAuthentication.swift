import Foundation
import HearthDomain
import HearthRuntime
import HTTPTypes
import Hummingbird

/// Requires `Authorization: Bearer <Hearth token>` and puts the user id on the context. Every
/// failure is a 401 with the JSON error body, never a 500; an account being deleted answers 403
/// outside the routes that show or restore it (`AccountStanding`).
struct BearerAuthentication: RouterMiddleware {
    typealias Context = HearthRequestContext

    let tokens: HearthTokens
    let standing: AccountStanding

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Self.unauthorized("an Authorization: Bearer token is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Self.unauthorized("the Authorization header must be `Bearer <token>`")
        }
        let verified: VerifiedToken
        do {
            verified = try await tokens.verify(Self.trimmed(parts[1]))
        } catch {
            throw Self.unauthorized(error.description)
        }
        try await standing.check(verified, method: request.method.rawValue, path: request.uri.path)
        var context = context
        context.userId = verified.userId.uuidString.lowercased()
        context.signedInAt = verified.signedInAt
        context.sessionId = verified.sessionId
        context.tokenExpiresAt = verified.expiresAt
        context.logger[metadataKey: "user_id"] = .string(context.userId!)
        return try await next(request, context)
    }

    /// The token without surrounding whitespace. A token almost always has none, and then the
    /// check is two bytes instead of Foundation's trimming, which walks all of a ~600-character
    /// token through UTF-16 on every request.
    static func trimmed(_ token: Substring) -> String {
        if let first = token.utf8.first, let last = token.utf8.last,
           (0x21..<0x7F).contains(first), (0x21..<0x7F).contains(last) {
            return String(token)
        }
        return String(token).trimmingCharacters(in: .whitespaces)
    }

    static func unauthorized(_ message: String) -> APIError {
        APIError(.unauthorized, code: "unauthorized", message: message, headers: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
    }
}

extension HearthRequestContext {
    /// The authenticated user; only routes behind `BearerAuthentication` may ask.
    func authenticatedUser() throws -> UUID {
        guard let text = userId, let id = UUID(uuidString: text) else {
            throw BearerAuthentication.unauthorized("an Authorization: Bearer token is required")
        }
        return id
    }
}
