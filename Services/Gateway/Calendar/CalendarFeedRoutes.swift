import Crypto
import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `POST /v1/calendar/feeds`, `DELETE /v1/calendar/feeds/{id}` and the feed itself,
/// `GET /v1/calendar/feeds/{token}.ics`, which calendar applications fetch without any other
/// authentication: the 256-bit token in the URL is the credential, so only its SHA-256 is kept.
struct CalendarFeedRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: CalendarReadModel
    let membership: MembershipReadModel
    let consistency: ReadConsistency
    /// `HEARTH_PUBLIC_URL` without a trailing slash: where clients reach this API.
    let publicURL: String?
    /// Outside production, without a public URL: the request's own `Host` (a local client).
    let trustsHostHeader: Bool

    static let projection = "calendar_feeds"

    struct Created: ResponseEncodable {
        @LowercaseID var feedId: UUID
        /// Absent in production without `HEARTH_PUBLIC_URL`: the `Host` a request names is the
        /// client's to choose, and a URL built from it could send the calendar elsewhere.
        let url: String?
        let path: String
        let position: String

        enum CodingKeys: String, CodingKey {
            case feedId = "feed_id"
            case url, path, position
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("calendar/feeds") { request, context in
            EditedResponse(status: .created, response: try await create(request, context: context))
        }
        routes.delete("calendar/feeds/{id}") { request, context in try await revoke(request, context: context) }
    }

    /// The feed route carries no bearer token; it is registered beside sign-in.
    func registerOpen(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("calendar/feeds/{token}.ics") { request, context in try await serve(request, context: context) }
    }

    static func tokenHash(_ token: String) -> String {
        Hex.encode(SHA256.hash(data: Data(token.utf8)))
    }

    func create(_ request: Request, context: HearthRequestContext) async throws -> Created {
        let user = try context.authenticatedUser()
        let token = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let event = CalendarFeedCreated(
            feedId: EventIdentity.newId("calendar_feed"), householdId: try await membership.household(of: user, for: request), userId: user, tokenSHA256: Self.tokenHash(token))
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        // The URL is handed to a calendar application that will fetch it at once.
        try await consistency.awaitApplied(position, projections: [Self.projection])
        let path = "/v1/calendar/feeds/\(token).ics"
        let url = publicURL.map { $0 + path } ?? (trustsHostHeader ? "http://\(request.head.authority ?? "127.0.0.1")\(path)" : nil)
        return Created(feedId: event.feedId, url: url, path: path, position: position.description)
    }

    func revoke(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.invalid("id", "id must be a UUID") }
        guard let feed = try await readModel.feed(id: id), feed.userId == user, !feed.revoked else { throw APIError.notFound("feed") }
        let position = try await publisher.publish(CalendarFeedRevoked(feedId: id, userId: user), correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        return Response(status: .noContent)
    }

    func serve(_ request: Request, context: HearthRequestContext) async throws -> Response {
        guard let token = context.parameters.get("token"), (20...100).contains(token.count) else { throw APIError.notFound("feed") }
        guard let feed = try await readModel.feed(tokenSHA256: Self.tokenHash(token)), !feed.revoked else { throw APIError.notFound("feed") }
        // A feed of a household its creator has left (or was removed from) answers no more.
        if let household = feed.householdId, try await membership.role(of: feed.userId, in: household) == nil {
            throw APIError.notFound("feed")
        }
        let entries = try await readModel.entries(of: feed.userId, household: feed.householdId).map(\.domain)
        let text = ICalendarWriter(calendarName: "Hearth").write(entries)
        var headers = HTTPFields()
        headers[.contentType] = "text/calendar; charset=utf-8"
        headers[.cacheControl] = "private, max-age=300"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
