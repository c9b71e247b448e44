import Foundation
import HearthRuntime
import Hummingbird
import Synchronization

/// Lets only the users listed in `HEARTH_ADMIN_USER_IDS` through; everyone else gets a 403 (the
/// admin routes are no secret, unlike another household's id).
struct AdminOnly: RouterMiddleware {
    typealias Context = HearthRequestContext

    let admins: Set<UUID>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard admins.contains(try context.authenticatedUser()) else {
            throw APIError(.forbidden, code: "forbidden", message: "this route is for administrators")
        }
        return try await next(request, context)
    }
}

/// The routes the gateway's router holds, captured once registration is complete. Read by `GET
/// /v1/admin/routes`, which is what the OpenAPI coverage test compares the document with.
final class RegisteredRoutes: Sendable {
    struct Route: Codable, Hashable, Sendable {
        let method: String
        let path: String
    }

    private let routes = Mutex<[Route]>([])

    func record(_ routes: [Route]) {
        self.routes.withLock { $0 = routes.sorted { ($0.path, $0.method) < ($1.path, $1.method) } }
    }

    var all: [Route] { routes.withLock { $0 } }
}

/// `GET /v1/admin/users`, `GET /v1/admin/users/{user_id}` and `GET /v1/admin/routes`.
struct AdminRoutes: Sendable {
    let users: UserReadModel
    let lookup: AdminUserLookup
    let registeredRoutes: RegisteredRoutes

    struct UserPage: ResponseEncodable {
        let users: [UserView]
        let limit: Int
        let offset: Int
        let q: String?

        enum CodingKeys: String, CodingKey {
            case users, limit, offset, q
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(users, forKey: .users)
            try container.encode(limit, forKey: .limit)
            try container.encode(offset, forKey: .offset)
            try container.encode(q, forKey: .q)
        }
    }

    struct RouteList: ResponseEncodable {
        let routes: [RegisteredRoutes.Route]
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("users") { request, _ in try await listUsers(request) }
        routes.get("users/{user_id}") { _, context in try await lookup.detail(try Self.userId(in: context)) }
        routes.put("users/{user_id}/quota") { request, context in
            let id = try Self.userId(in: context)
            let quota = try await JSONRequestBody.decode(QuotaRequest.self, from: request, context: context).validated()
            return try await lookup.setQuota(of: id, to: quota, by: try context.authenticatedUser(), correlationId: context.correlationId)
        }
        routes.get("routes") { _, _ in RouteList(routes: registeredRoutes.all) }
    }

    func listUsers(_ request: Request) async throws -> UserPage {
        let query = request.uri.queryParameters
        let limit = try Self.integer(query.get("limit"), name: "limit", default: 50, range: 1...500)
        let offset = try Self.integer(query.get("offset"), name: "offset", default: 0, range: 0...1_000_000)
        let search = try Self.search(query.get("q"))
        return UserPage(users: try await users.list(limit: limit, offset: offset, search: search), limit: limit, offset: offset, q: search)
    }

    /// The `{user_id}` of the path.
    static func userId(in context: HearthRequestContext) throws -> UUID {
        guard let id = context.parameters.get("user_id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("user_id", "the user id in the path must be a UUID")
        }
        return id
    }

    /// `?q=`: trimmed, 1 to 200 characters; empty means no search.
    static func search(_ text: String?) throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.count <= 200 else { throw APIError.invalid("q", "q must be at most 200 characters") }
        return text
    }

    static func integer(_ text: String?, name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.invalid(name, "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }
}
