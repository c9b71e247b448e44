import AsyncHTTPClient
import Foundation
import HearthGoogle
import Logging
import Metrics
import NIOCore
import NIOHTTP1

/// Google's answer to one Calendar API call.
struct CalendarReply: Sendable {
    let status: Int
    let body: Data

    var etag: String? {
        struct Resource: Decodable { let etag: String? }
        return (try? JSONDecoder().decode(Resource.self, from: body))?.etag
    }
}

/// A Calendar API call that failed for good (not 401, 429 or 5xx): a bad request, a forbidden
/// calendar. The entry is marked failed for that user and the mirror moves on.
struct CalendarRequestRefused: Error, CustomStringConvertible {
    let status: Int
    let detail: String
    var description: String { "Google Calendar answered \(status): \(detail)" }
}

/// Calendar API v3 events: insert, update, delete, with the user's access token.
///
/// 401 → one token refresh and one retry. 429, 5xx and transport errors → retried with
/// exponential back-off (honouring `Retry-After`) for as long as it takes: the mirror keeps
/// per-entry order by never skipping ahead, and shutdown cancels the wait.
struct GoogleCalendarClient: Sendable {
    let http: HTTPClient
    let baseURL: String
    let tokens: AccessTokens
    let backoffBase: Duration
    let backoffCap: Duration
    let logger: Logger

    enum Operation: String { case insert, update, delete }

    func eventsURL(calendarId: String, eventId: String? = nil) -> String {
        let calendar = calendarId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? calendarId
        return "\(baseURL)/calendars/\(calendar)/events" + (eventId.map { "/\($0)" } ?? "")
    }

    func insert(_ body: Data, calendarId: String, user: UUID, credentials: @escaping @Sendable () async throws -> Data?) async throws -> CalendarReply {
        try await call(.insert, method: .POST, url: eventsURL(calendarId: calendarId), body: body, user: user, credentials: credentials)
    }

    func update(_ body: Data, eventId: String, calendarId: String, user: UUID, credentials: @escaping @Sendable () async throws -> Data?) async throws -> CalendarReply {
        try await call(.update, method: .PUT, url: eventsURL(calendarId: calendarId, eventId: eventId), body: body, user: user, credentials: credentials)
    }

    func delete(eventId: String, calendarId: String, user: UUID, credentials: @escaping @Sendable () async throws -> Data?) async throws -> CalendarReply {
        try await call(.delete, method: .DELETE, url: eventsURL(calendarId: calendarId, eventId: eventId), body: nil, user: user, credentials: credentials)
    }

    private func call(
        _ operation: Operation, method: HTTPMethod, url: String, body: Data?, user: UUID, credentials: @escaping @Sendable () async throws -> Data?
    ) async throws -> CalendarReply {
        var token = try await tokens.token(for: user, sealedRefreshToken: credentials)
        var refreshedAfter401 = false
        var delay = backoffBase
        while true {
            try Task.checkCancellation()
            let outcome: Result<(CalendarReply, Duration?), any Error>
            do {
                outcome = .success(try await send(method: method, url: url, body: body, token: token))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let (reply, retryAfter)):
                Counter(label: "hearth_google_requests_total", dimensions: [("operation", operation.rawValue), ("status", String(reply.status))]).increment()
                if reply.status == 401 && !refreshedAfter401 {
                    refreshedAfter401 = true
                    token = try await tokens.replace(token, for: user, sealedRefreshToken: credentials)
                    continue
                }
                if reply.status == 429 || reply.status >= 500 || Self.isRateLimit(reply) {
                    let wait = retryAfter.map { min($0, backoffCap) } ?? delay
                    logger.warning("Google Calendar busy, backing off", metadata: [
                        "operation": "\(operation.rawValue)", "status": "\(reply.status)", "wait_ms": "\(wait.milliseconds)"])
                    try await Task.sleep(for: wait)
                    delay = min(delay * 2, backoffCap)
                    continue
                }
                return reply
            case .failure(let error):
                if error is CancellationError { throw error }
                logger.warning("Google Calendar unreachable, backing off", metadata: [
                    "operation": "\(operation.rawValue)", "error": "\(error)", "wait_ms": "\(delay.milliseconds)"])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, backoffCap)
            }
        }
    }

    /// Google also reports usage limits as 403 with reason `rateLimitExceeded` or
    /// `userRateLimitExceeded`: those are waits, not refusals.
    static func isRateLimit(_ reply: CalendarReply) -> Bool {
        guard reply.status == 403 else { return false }
        let text = String(decoding: reply.body.prefix(2000), as: UTF8.self)
        return text.contains("rateLimitExceeded") || text.contains("userRateLimitExceeded")
    }

    private func send(method: HTTPMethod, url: String, body: Data?, token: String) async throws -> (CalendarReply, Duration?) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let data = Data(buffer: try await response.body.collect(upTo: 4 << 20))
        let retryAfter = response.headers.first(name: "Retry-After").flatMap(Int.init).map { Duration.seconds($0) }
        return (CalendarReply(status: Int(response.status.code), body: data), retryAfter)
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
