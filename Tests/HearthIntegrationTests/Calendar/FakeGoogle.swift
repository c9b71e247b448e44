import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// An event as the fake Google calendar holds it.
struct FakeGoogleEvent: Codable, Sendable, Equatable {
    struct Moment: Codable, Sendable, Equatable {
        var dateTime: String?
        var date: String?
        var timeZone: String?
    }

    var id: String
    var summary: String?
    var location: String?
    var start: Moment
    var end: Moment
    var recurrence: [String]?
    var etag: String?
}

/// A local stand-in for Google's OAuth token endpoint and the Calendar API v3 events resource,
/// in memory, over HTTP/1.1. It answers the way Google does where Hearth depends on it: client
/// ids on insert (409 when taken), 404 for unknown events, 401 for unknown access tokens,
/// `invalid_grant` for revoked refresh tokens.
actor FakeGoogle {
    private(set) var calendars: [String: [String: FakeGoogleEvent]] = [:]
    private var refreshTokens: [String: Bool] = [:]  // token → revoked
    private var accessTokens: Set<String> = []
    private(set) var codeExchanges = 0
    private(set) var refreshGrants = 0
    private(set) var insertConflicts = 0
    private(set) var unauthorizedAnswers = 0
    private(set) var calendarRequests = 0
    private(set) var revocations = 0
    /// Statuses to answer the next Calendar calls with, before serving them for real.
    private var scriptedFailures: [Int] = []
    private var counter = 0

    func events(in calendar: String = "primary") -> [String: FakeGoogleEvent] { calendars[calendar] ?? [:] }

    /// Every access token stops working (they expired early): the next call gets a 401.
    func expireAccessTokens() { accessTokens.removeAll() }

    /// The user revoked Hearth's access: refresh tokens give `invalid_grant`, access tokens 401.
    func revokeGrants() {
        for token in refreshTokens.keys { refreshTokens[token] = true }
        accessTokens.removeAll()
    }

    func failNext(_ statuses: [Int]) { scriptedFailures += statuses }

    private func issueAccessToken() -> String {
        counter += 1
        let token = "access-\(counter)-\(UUID().uuidString.prefix(8))"
        accessTokens.insert(token)
        return token
    }

    func token(form: [String: String]) -> (Int, [String: any Sendable]) {
        guard form["client_id"] == "hearth-test-client", form["client_secret"] == "hearth-test-secret" else {
            return (401, ["error": "invalid_client"])
        }
        switch form["grant_type"] {
        case "authorization_code":
            codeExchanges += 1
            guard let code = form["code"], code.hasPrefix("good-code") else { return (400, ["error": "invalid_grant"]) }
            let refresh = "refresh-\(UUID().uuidString)"
            refreshTokens[refresh] = false
            return (200, ["access_token": issueAccessToken(), "expires_in": 3599, "refresh_token": refresh,
                          "scope": "https://www.googleapis.com/auth/calendar.events", "token_type": "Bearer"])
        case "refresh_token":
            refreshGrants += 1
            guard let refresh = form["refresh_token"], refreshTokens[refresh] == false else {
                return (400, ["error": "invalid_grant", "error_description": "Token has been expired or revoked."])
            }
            return (200, ["access_token": issueAccessToken(), "expires_in": 3599, "token_type": "Bearer"])
        default:
            return (400, ["error": "unsupported_grant_type"])
        }
    }

    func revoke(form: [String: String]) -> Int {
        guard let token = form["token"], refreshTokens[token] != nil else { return 400 }
        revocations += 1
        refreshTokens[token] = true
        return 200
    }

    func calendarCall(method: String, calendar: String, eventId: String?, bearer: String?, body: Data) -> (Int, Data) {
        calendarRequests += 1
        guard let bearer, accessTokens.contains(bearer) else {
            unauthorizedAnswers += 1
            return (401, Data(#"{"error":{"code":401,"message":"Invalid Credentials"}}"#.utf8))
        }
        if !scriptedFailures.isEmpty {
            let status = scriptedFailures.removeFirst()
            return (status, Data(#"{"error":{"code":\#(status),"message":"scripted"}}"#.utf8))
        }
        var events = calendars[calendar] ?? [:]
        defer { calendars[calendar] = events }
        func reply(_ event: FakeGoogleEvent) -> (Int, Data) { (200, (try? JSONEncoder().encode(event)) ?? Data()) }
        switch (method, eventId) {
        case ("GET", nil):
            let items = events.values.sorted { $0.id < $1.id }
            return (200, (try? JSONEncoder().encode(["items": items])) ?? Data())
        case ("POST", nil):
            guard var event = try? JSONDecoder().decode(FakeGoogleEvent.self, from: body) else { return (400, Data()) }
            if events[event.id] != nil {
                insertConflicts += 1
                return (409, Data(#"{"error":{"code":409,"message":"The requested identifier already exists."}}"#.utf8))
            }
            counter += 1
            event.etag = "\"etag-\(counter)\""
            events[event.id] = event
            return reply(event)
        case ("PUT", let id?):
            guard events[id] != nil else { return (404, Data()) }
            guard var event = try? JSONDecoder().decode(FakeGoogleEvent.self, from: body) else { return (400, Data()) }
            counter += 1
            event.id = id
            event.etag = "\"etag-\(counter)\""
            events[id] = event
            return reply(event)
        case ("DELETE", let id?):
            guard events.removeValue(forKey: id) != nil else { return (410, Data()) }
            return (204, Data())
        default:
            return (405, Data())
        }
    }

    static func form(_ data: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: data, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    static func json(_ status: Int, _ data: Data) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        return Response(status: .init(code: status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Runs `body` with the fake listening on 127.0.0.1; hands it the base URL.
    func serve<T: Sendable>(_ body: @Sendable @escaping (_ baseURL: String) async throws -> T) async throws -> T {
        let router = Router()
        router.post("/token") { request, _ in
            let data = Data(try await request.body.collect(upTo: 1 << 16).readableBytesView)
            let (status, object) = await self.token(form: Self.form(data))
            return Self.json(status, try JSONSerialization.data(withJSONObject: object))
        }
        router.post("/revoke") { request, _ in
            let data = Data(try await request.body.collect(upTo: 1 << 16).readableBytesView)
            return Self.json(await self.revoke(form: Self.form(data)), Data("{}".utf8))
        }
        let handle: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            let data = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            let (status, reply) = await self.calendarCall(
                method: request.method.rawValue, calendar: context.parameters.get("calendar") ?? "", eventId: context.parameters.get("event"),
                bearer: bearer, body: data)
            return Self.json(status, reply)
        }
        router.get("/calendar/v3/calendars/{calendar}/events", use: handle)
        router.post("/calendar/v3/calendars/{calendar}/events", use: handle)
        router.put("/calendar/v3/calendars/{calendar}/events/{event}", use: handle)
        router.delete("/calendar/v3/calendars/{calendar}/events/{event}", use: handle)
        var logger = Logger(label: "fake-google")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        return try await app.test(.live) { client in
            let port = try #require(client.port)
            return try await body("http://127.0.0.1:\(port)")
        }
    }
}
