import Foundation
import HearthDomain
import HearthRuntime
import HTTPTypes
import Hummingbird
import Logging

/// The admin console in a browser, under `/admin`: sign-in (Sign in with Apple, or in dev a
/// one-time link from `hearthctl admin link`), then server-rendered pages over the same reports as
/// their JSON twins under `/v1/admin`. The session lives in an HttpOnly, SameSite=Strict cookie
/// (Secure in production or behind an https public URL) scoped to `/admin`; every form carries the session's CSRF token, and a
/// POST without it changes nothing. Each request checks that the session's user is still an
/// administrator.
struct AdminConsoleRoutes: Sendable {
    let sessions: AdminConsoleSessions
    let admins: Set<UUID>
    let apple: AppleIdentityVerifier
    /// Where Apple sends the browser back (`HEARTH_PUBLIC_URL` + `/admin/sign-in/apple`); nil
    /// without a public URL or an Apple client id.
    let appleRedirectURL: String?
    let appleClientId: String?
    let devLinks: Bool
    let secureCookie: Bool
    let usage: UsageRoutes
    let feedback: FeedbackReview
    let pipeline: PipelineHealth
    let redrive: DeadLetterRedrive
    let moderation: ActivityModerationRoutes
    let users: UserReadModel
    let lookup: AdminUserLookup

    static let cookieName = "hearth_admin"
    static let appleAuthorizeURL = "https://appleid.apple.com/auth/authorize"
    static let home = "/admin/usage"
    /// Form bodies are a few fields; Apple's form post with an identity token is the largest.
    static let maxFormBytes = 16_384

    func register(on router: Router<HearthRequestContext>) {
        let admin = router.group("admin")
        admin.get { request, context in
            try await session(of: request, context: context) == nil ? Self.redirect("/admin/sign-in") : Self.redirect(Self.home)
        }
        admin.get("sign-in") { _, _ in
            Self.html(ConsolePages.signIn(appleURL: appleRedirectURL == nil ? nil : "/admin/sign-in/apple", devLinks: devLinks, message: nil))
        }
        admin.get("sign-in/apple") { _, _ in try await beginApple() }
        admin.post("sign-in/apple") { request, context in try await finishApple(request, context: context) }
        admin.get("sign-in/link") { request, context in try await signInWithLink(request, context: context) }
        admin.post("sign-out") { request, context in
            try await action(request, context: context) { _, _ in
                if let token = request.cookies[Self.cookieName]?.value { try await sessions.signOut(token) }
                var response = Self.redirect("/admin/sign-in")
                response.headers.append(HTTPField(name: .setCookie, value: self.clearedCookie))
                return response
            }
        }

        admin.get("usage") { request, context in
            try await page(request, context: context) { session in
                let days = try UsageRoutes.days(request)
                return ConsolePages.usage(try await usage.stats(days: days), generatedAt: Date(), csrf: session.csrfToken)
            }
        }
        admin.get("feedback") { request, context in
            try await page(request, context: context) { session in
                let query = request.uri.queryParameters
                let filter = try FeedbackReview.Filter(mode: query.get("mode"), rating: query.get("rating"), limit: query.get("limit"))
                return ConsolePages.feedback(try await feedback.report(filter), csrf: session.csrfToken)
            }
        }
        admin.get("pipeline") { request, context in
            try await page(request, context: context) { session in
                ConsolePages.pipeline(try await pipeline.report(), csrf: session.csrfToken, notice: request.uri.queryParameters.get("done").map(Self.notice))
            }
        }
        admin.post("pipeline/redrive") { request, context in
            try await action(request, context: context) { session, form in
                let target = try DeadLetterRedrive.Target(
                    projection: form["projection"] ?? "", topic: form["topic"] ?? "",
                    partition: Self.number(form["partition"], field: "partition"), offset: Self.number(form["offset"], field: "offset")
                ).validated()
                _ = try await redrive.redrive(target, by: session.userId, correlationId: context.correlationId, logger: context.logger)
                return Self.redirect("/admin/pipeline?done=redriven")
            }
        }
        admin.get("moderation") { request, context in
            try await page(request, context: context) { session in
                let status = request.uri.queryParameters.get("status") ?? "held"
                let queue = try await moderation.queue(request, context: context)
                return ConsolePages.moderation(queue, status: status, csrf: session.csrfToken, notice: request.uri.queryParameters.get("done").map(Self.notice))
            }
        }
        for approve in [true, false] {
            admin.post("moderation/{id}/\(approve ? "approve" : "reject")") { request, context in
                try await action(request, context: context) { session, form in
                    guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                        throw APIError.invalid("submission_id", "the submission id in the path must be a UUID")
                    }
                    _ = try await moderation.decide(
                        id, approve: approve, reason: form["reason"], note: form["note"], by: session.userId, correlationId: context.correlationId,
                        logger: context.logger)
                    return Self.redirect("/admin/moderation?done=\(approve ? "approved" : "rejected")")
                }
            }
        }
        admin.get("users") { request, context in
            try await page(request, context: context) { session in
                let query = try AdminRoutes.search(request.uri.queryParameters.get("q"))
                var found: [UserView] = []
                if let query { found = try await users.list(limit: 50, offset: 0, search: query) }
                let detail = found.count == 1 ? try await lookup.detail(found[0].userId) : nil
                return ConsolePages.users(
                    query: query, found: found, detail: detail, csrf: session.csrfToken, notice: request.uri.queryParameters.get("done").map(Self.notice))
            }
        }
        admin.post("users/{user_id}/quota") { request, context in
            try await action(request, context: context) { session, form in
                let id = try AdminRoutes.userId(in: context)
                // An empty field puts the user back on the default.
                let text = (form["monthly_quota"] ?? "").trimmingCharacters(in: .whitespaces)
                let quota = try QuotaRequest(monthlyQuota: text.isEmpty ? nil : Self.number(text, field: "monthly_quota") as Int).validated()
                _ = try await lookup.setQuota(of: id, to: quota, by: session.userId, correlationId: context.correlationId)
                return Self.redirect("/admin/users?q=\(id.uuidString.lowercased())&done=quota")
            }
        }
    }

    // MARK: Sign-in

    private func beginApple() async throws -> Response {
        guard let appleRedirectURL, let appleClientId else {
            return Self.html(ConsolePages.plain(title: "Sign in with Apple is not configured", status: 503, body: "<p>Set HEARTH_APPLE_WEB_CLIENT_ID and HEARTH_PUBLIC_URL.</p>"), status: .serviceUnavailable)
        }
        let (state, nonceHash) = try await sessions.beginAppleSignIn()
        var components = URLComponents(string: Self.appleAuthorizeURL)!
        components.queryItems = [
            .init(name: "response_type", value: "code id_token"), .init(name: "response_mode", value: "form_post"),
            .init(name: "client_id", value: appleClientId), .init(name: "redirect_uri", value: appleRedirectURL),
            .init(name: "state", value: state), .init(name: "nonce", value: nonceHash),
        ]
        return Self.redirect(components.string ?? Self.appleAuthorizeURL)
    }

    /// Apple's form post (a cross-site POST, so no cookie of ours comes with it): the one-time
    /// `state` stands in for the CSRF token, and the identity token must carry its nonce.
    private func finishApple(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let form = try await Self.form(request, context: context)
        guard let state = form["state"], let nonce = try await sessions.finishAppleSignIn(state: state) else {
            return Self.refusal(.forbidden, "This sign-in attempt is unknown or has expired. Start again from the sign-in page.")
        }
        guard let idToken = form["id_token"] else { return Self.refusal(.badRequest, "Apple sent no identity token.") }
        let subject: String
        do {
            subject = try await apple.subject(of: idToken, nonce: nonce)
        } catch {
            context.logger.warning("console Apple sign-in refused", metadata: ["error": "\(error)"])
            return Self.refusal(.unauthorized, "Apple's identity token was refused.")
        }
        return try await openSession(for: UserIdentity.userId(provider: .apple, subject: subject), method: "apple", next: nil, context: context)
    }

    private func signInWithLink(_ request: Request, context: HearthRequestContext) async throws -> Response {
        // Production has no links at all: the route answers as if it did not exist.
        guard devLinks else { throw APIError.notFound("route") }
        guard let token = request.uri.queryParameters.get("token"), let user = try await sessions.redeemLink(token) else {
            return Self.refusal(.forbidden, "This sign-in link is unknown, used or expired. Ask for a new one with hearthctl admin link.")
        }
        return try await openSession(for: user, method: "dev_link", next: request.uri.queryParameters.get("next"), context: context)
    }

    private func openSession(for user: UUID, method: String, next: String?, context: HearthRequestContext) async throws -> Response {
        guard admins.contains(user) else {
            context.logger.warning("console sign-in by a non-administrator", metadata: ["user_id": "\(user)", "method": "\(method)"])
            return Self.refusal(.forbidden, "This account is not an administrator of Hearth.")
        }
        let token = try await sessions.open(for: user, method: method)
        context.logger.notice("console sign-in", metadata: ["user_id": "\(user)", "method": "\(method)"])
        // Not a redirect: the browser would not send a SameSite=Strict cookie on a redirect that a
        // cross-site post (Apple's) or a link in a mail started. This page of ours sets the cookie
        // and moves on itself, so the next navigation is our own and carries it.
        var response = Self.html(ConsolePages.signedIn(next: Self.consolePath(next) ?? Self.home))
        response.headers.append(HTTPField(name: .setCookie, value: sessionCookie(token)))
        return response
    }

    /// A console page to go to after sign-in: only paths under `/admin/`, never another host.
    static func consolePath(_ next: String?) -> String? {
        guard let next, next.hasPrefix("/admin/"), !next.contains("//"), !next.contains("\\"), next.count <= 500 else { return nil }
        return next
    }

    func sessionCookie(_ token: String) -> String {
        "\(Self.cookieName)=\(token); Path=/admin; Max-Age=\(Int(sessions.lifetime)); HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : "")
    }

    var clearedCookie: String {
        "\(Self.cookieName)=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : "")
    }

    // MARK: Sessions

    private func session(of request: Request, context: HearthRequestContext) async throws -> AdminConsoleSession? {
        guard let token = request.cookies[Self.cookieName]?.value else { return nil }
        return try await sessions.session(token)
    }

    /// A page: without a session, the sign-in page; a session whose user is no longer an
    /// administrator, 403; a bad query parameter, 400 naming it.
    private func page(_ request: Request, context: HearthRequestContext, render: (AdminConsoleSession) async throws -> String) async throws -> Response {
        guard let session = try await session(of: request, context: context) else { return Self.redirect("/admin/sign-in") }
        guard admins.contains(session.userId) else { return Self.refusal(.forbidden, "This account is not an administrator of Hearth.") }
        do {
            return Self.html(try await render(session))
        } catch let error as APIError where error.status.code < 500 {
            return Self.refusal(error)
        }
    }

    /// A form post: a live session, its CSRF token in the form, then `perform`. Without a session
    /// 401, without the right token 403; either way nothing is done.
    private func action(
        _ request: Request, context: HearthRequestContext, perform: (AdminConsoleSession, [String: String]) async throws -> Response
    ) async throws -> Response {
        guard let session = try await session(of: request, context: context) else {
            return Self.refusal(.unauthorized, "Your console session has ended. Sign in again.")
        }
        guard admins.contains(session.userId) else { return Self.refusal(.forbidden, "This account is not an administrator of Hearth.") }
        let form: [String: String]
        do {
            form = try await Self.form(request, context: context)
        } catch let error as APIError {
            return Self.refusal(error.status, error.message)
        }
        guard let presented = form["csrf"], Self.constantTimeEqual(presented, session.csrfToken) else {
            context.logger.warning("console form refused: CSRF token missing or wrong", metadata: ["user_id": "\(session.userId)"])
            return Self.refusal(.forbidden, "The form's CSRF token is missing or wrong: nothing was changed. Reload the page and try again.")
        }
        do {
            return try await perform(session, form)
        } catch let error as APIError where error.status.code < 500 {
            return Self.refusal(error)
        }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: Forms and answers

    /// An `application/x-www-form-urlencoded` body as a dictionary (the first of a repeated name).
    static func form(_ request: Request, context: HearthRequestContext) async throws -> [String: String] {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "forms must be application/x-www-form-urlencoded")
        }
        let buffer = try await request.body.collect(upTo: maxFormBytes)
        return try parseForm(String(buffer: buffer))
    }

    /// Decoded by hand: Foundation's `URLComponents` stops the process when given a query with
    /// characters it does not expect, and this is whatever a client sent.
    static func parseForm(_ body: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeFormComponent(parts[0]), let value = decodeFormComponent(parts.count > 1 ? parts[1] : "") else {
                throw APIError(.badRequest, code: "invalid_form", message: "the form body is not valid URL encoding")
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    private static func decodeFormComponent(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    static func number<T: FixedWidthInteger>(_ text: String?, field: String) throws -> T {
        guard let text, let value = T(text) else { throw APIError.invalid(field, "\(field) must be a whole number") }
        return value
    }

    static func notice(_ done: String) -> String {
        switch done {
        case "redriven": "The event was sent back to its topic; the projection retries it."
        case "approved": "Approved: it goes into the feed."
        case "rejected": "Rejected: its author is told why."
        case "quota": "The quota is set: it applies to the next run."
        default: "Done."
        }
    }

    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A client error as the console's page: its status, and its message naming the field.
    static func refusal(_ error: APIError) -> Response {
        refusal(error.status, error.field.map { "\($0): \(error.message)" } ?? error.message)
    }

    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        html(ConsolePages.plain(
            title: status.reasonPhrase, status: status.code,
            body: #"<p id="refusal">\#(HTML.escape(message))</p><p><a href="/admin/sign-in">Sign in</a> · <a href="\#(home)">Console</a></p>"#),
            status: status)
    }
}
