import Foundation
import HearthEvents
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO

/// Body of `POST /v1/me/export`.
struct ExportRequestBody: Decodable {
    /// `user` (default): everything of the caller's; `household`: the household's shared data
    /// (its owner only).
    var scope: String?
}

/// What `POST /v1/me/export` and a pending `GET /v1/me/export/{id}` answer.
struct ExportStatus: ResponseEncodable {
    @LowercaseID var exportId: UUID
    /// `pending` or `ready`.
    let status: String
    /// The request's consistency token: sent back as `X-Consistency-Token`, the download waits
    /// until the export is known (instead of a 404 in the moment after asking).
    var position: String?

    enum CodingKeys: String, CodingKey {
        case exportId = "export_id"
        case status, position
    }
}

/// `POST /v1/me/export` asks for a copy of the caller's data (or, for a household's owner, of the
/// household's); `GET /v1/me/export/{id}` answers 202 while the archive is built, then the ZIP.
struct ExportRoutes: Sendable {
    let publisher: EventPublisher
    let client: PostgresClient
    let consistency: ReadConsistency
    let logger: Logger

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("me/export") { request, context in
            EditedResponse(status: .accepted, response: try await ask(request, context: context))
        }
        routes.get("me/export/{id}") { request, context in try await download(request, context: context) }
    }

    func ask(_ request: Request, context: HearthRequestContext) async throws -> ExportStatus {
        let user = try context.authenticatedUser()
        // The body is optional: no body asks for the caller's own data.
        let body = try await JSONRequestBody.decodeIfPresent(ExportRequestBody.self, from: request, context: context) ?? ExportRequestBody()
        let scope = body.scope ?? "user"
        var household: UUID?
        switch scope {
        case "user":
            break
        case "household":
            // Only an owner exports a household: of several owned, the header says which.
            var ownedHouseholds: [UUID] = []
            for try await id in try await client.query(
                "SELECT household_id FROM user_households WHERE user_id = \(user) AND role = 'owner' ORDER BY joined_at, household_id", logger: logger
            ).decode(UUID.self) { ownedHouseholds.append(id) }
            guard let owned = try MembershipReadModel.select(from: ownedHouseholds, header: request.headers[MembershipReadModel.householdHeader]) else {
                throw APIError(.forbidden, code: "not_household_owner", message: "only the household's owner can export the household's data")
            }
            household = owned
        default:
            throw APIError.invalid("scope", "scope must be user or household")
        }
        let event = UserExportRequested(exportId: UUID(), userId: user, scope: scope, householdId: household)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        return ExportStatus(exportId: event.exportId, status: "pending", position: position.description)
    }

    func download(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.invalid("id", "id must be an export id") }
        let pending = try consistency.pendingRead(in: request, projections: [.users: [GatewayProjection.exportRequests]], writtenBy: "an export request")
        try await consistency.wait(for: pending)
        var asked = false
        for try await owner in try await client.query("SELECT user_id FROM export_requests WHERE export_id = \(id)", logger: logger).decode(UUID.self) {
            asked = owner == user
        }
        var archive: Data?
        for try await (owner, bytes) in try await client.query(
            "SELECT user_id, archive FROM export_archives WHERE export_id = \(id)", logger: logger
        ).decode((UUID, Data).self) where owner == user {
            archive = bytes
        }
        // Another user's export is as absent as one never asked for.
        guard let archive else {
            guard asked else { throw APIError.notFound("export") }
            var response = try ExportStatus(exportId: id, status: "pending").response(from: request, context: context)
            response.status = .accepted
            response.headers[.retryAfter] = "2"
            return response
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip", .contentLength: String(archive.count),
                .contentDisposition: "attachment; filename=\"hearth-export-\(id.uuidString.lowercased()).zip\"",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: archive)))
    }
}
