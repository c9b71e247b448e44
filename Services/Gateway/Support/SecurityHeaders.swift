import HTTPTypes
import HearthRuntime
import Hummingbird

/// Security headers on every answer, and CORS for the configured origins only.
///
/// - `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, and a
///   `Content-Security-Policy` that lets a page load nothing but itself (the dashboard's inline
///   style included) and be framed by no one; `Strict-Transport-Security` in production, where
///   TLS terminates in front of the gateway.
/// - CORS: a browser page on one of `HEARTH_CORS_ORIGINS` may call the API (its preflight is
///   answered, its answers carry `Access-Control-Allow-Origin`); any other origin gets no CORS
///   headers, so browsers keep its scripts out. Bearer tokens, not cookies: no credentials mode.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    let allowedOrigins: Set<String>
    let strictTransportSecurity: Bool

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let contentSecurityPolicy = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE"
    static let allowedHeaders = "Authorization, Content-Type, Accept, Idempotency-Key, X-Consistency-Token, X-Request-Id, X-Correlation-Id, Last-Event-ID"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.headers[.origin].flatMap { allowedOrigins.contains($0) ? $0 : nil }
        if request.method == .options, let origin, request.headers[.accessControlRequestMethod] != nil {
            var response = Response(status: .noContent)
            corsHeaders(origin: origin, into: &response.headers)
            response.headers[.accessControlAllowMethods] = Self.allowedMethods
            response.headers[.accessControlAllowHeaders] = Self.allowedHeaders
            response.headers[.accessControlMaxAge] = "600"
            securityHeaders(into: &response.headers)
            return response
        }
        do {
            var response = try await next(request, context)
            if let origin { corsHeaders(origin: origin, into: &response.headers) }
            securityHeaders(into: &response.headers)
            return response
        } catch var error as APIError {
            // Errors get the same headers: they are answers too (written by `RequestIdMiddleware`).
            if let origin { corsHeaders(origin: origin, into: &error.headers) }
            securityHeaders(into: &error.headers)
            throw error
        }
    }

    private func corsHeaders(origin: String, into headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = origin
        headers[.vary] = "Origin"
        headers[.accessControlExposeHeaders] = "X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, ETag"
    }

    private func securityHeaders(into headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[Self.referrerPolicy] = "no-referrer"
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = Self.contentSecurityPolicy }
        if strictTransportSecurity { headers[.strictTransportSecurity] = "max-age=31536000; includeSubDomains" }
    }
}
