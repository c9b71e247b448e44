import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird

/// `POST /v1/households/upsert` turns a request into `household.upserted`; `GET
/// /v1/households/{id}` reads the `households` read model, optionally after waiting for a position.
struct HouseholdRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: HouseholdReadModel
    let consistency: ConsistencyWaiter

    static let consistencyHeader = HTTPField.Name("X-Consistency-Token")!

    struct UpsertResponse: ResponseEncodable {
        let householdId: UUID
        let version: Int
        let position: String

        enum CodingKeys: String, CodingKey {
            case householdId = "household_id"
            case version, position
        }
    }

    func register(on router: Router<HearthRequestContext>) {
        router.post("/v1/households/upsert") { request, context in
            try await upsert(request, context: context)
        }
        router.get("/v1/households/{id}") { request, context in
            try await read(request, context: context)
        }
    }

    func upsert(_ request: Request, context: HearthRequestContext) async throws -> UpsertResponse {
        let body = try await JSONRequestBody.decode(HouseholdUpsertRequest.self, from: request, context: context).validated()
        let id = body.householdId ?? UUID()
        var prefs = body.prefs
        var storedVersion: Int?
        if body.householdId != nil, let existing = try await readModel.find(id) {
            storedVersion = existing.version
            if body.mode == .merge { prefs = HouseholdPrefsRules.merged(existing.prefs, with: prefs) }
        }
        let version = readModel.nextVersion(of: id, stored: storedVersion)
        let event = HouseholdUpserted(householdId: id, householdVersion: version, name: body.name, prefs: prefs, userId: context.userId)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        context.logger.info("household upserted", metadata: ["household_id": "\(id)", "version": "\(version)", "position": "\(position)"])
        return UpsertResponse(householdId: id, version: version, position: position.description)
    }

    func read(_ request: Request, context: HearthRequestContext) async throws -> HouseholdView {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("household_id", "the household id in the path must be a UUID")
        }
        if let token = request.headers[Self.consistencyHeader] {
            guard let position = EventPosition(token: token), position.topic == Topic.households.name else {
                throw APIError.invalid("X-Consistency-Token", "X-Consistency-Token must be a position returned by a household upsert")
            }
            guard try await consistency.wait(for: position, projection: "households") else {
                throw APIError(.serviceUnavailable, code: "consistency_timeout",
                               message: "the households read model has not reached position \(position) within 5 s; retry shortly")
            }
        }
        guard let household = try await readModel.find(id) else { throw APIError.notFound("household") }
        return household
    }
}

extension HouseholdView: ResponseEncodable {}
