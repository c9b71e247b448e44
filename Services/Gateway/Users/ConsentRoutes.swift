import Foundation
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird
import PostgresNIO

/// What the user agreed to, as the `users` read model has it.
struct ConsentReadModel: Sendable {
    let client: PostgresClient

    struct Consents: ResponseEncodable {
        let cloudAI: Bool
        let updatedAt: Date?

        enum CodingKeys: String, CodingKey {
            case cloudAI = "cloud_ai"
            case updatedAt = "updated_at"
        }
    }

    /// Nothing on record is no consent.
    func consents(of user: UUID, context: HearthRequestContext) async throws -> Consents {
        let rows = try await client.query(
            "SELECT cloud_ai_consent, consents_updated_at FROM users WHERE user_id = \(user) AND erased_at IS NULL", logger: context.logger)
        for try await (cloudAI, updatedAt) in rows.decode((Bool, Date?).self) { return Consents(cloudAI: cloudAI, updatedAt: updatedAt) }
        return Consents(cloudAI: false, updatedAt: nil)
    }
}

/// `GET|PUT /v1/me/consents`: the caller's consents (`{"cloud_ai": true|false}`), as
/// `user.consents_updated`. A read after a write sends its `position` as `X-Consistency-Token`.
struct ConsentRoutes: Sendable {
    let publisher: EventPublisher
    let consents: ConsentReadModel
    let consistency: ReadConsistency

    static let readProjections: [Topic: [String]] = [.users: [GatewayProjection.users]]

    struct ConsentRequest: Decodable {
        var cloudAI: Bool
        enum CodingKeys: String, CodingKey { case cloudAI = "cloud_ai" }
    }

    struct Updated: ResponseEncodable {
        let cloudAI: Bool
        let position: String
        enum CodingKeys: String, CodingKey {
            case cloudAI = "cloud_ai"
            case position
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("me/consents") { request, context in
            let user = try context.authenticatedUser()
            try await consistency.wait(for: try consistency.pendingRead(in: request, projections: Self.readProjections, writtenBy: "PUT /v1/me/consents"))
            return try await consents.consents(of: user, context: context)
        }
        routes.put("me/consents") { request, context in
            let user = try context.authenticatedUser()
            let body = try await JSONRequestBody.decode(ConsentRequest.self, from: request, context: context)
            let position = try await publisher.publish(UserConsentsUpdated(userId: user, cloudAI: body.cloudAI), correlationId: context.correlationId)
            context.logger.info("consents updated", metadata: ["cloud_ai": "\(body.cloudAI)"])
            return Updated(cloudAI: body.cloudAI, position: position.description)
        }
    }
}
