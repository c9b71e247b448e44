import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `POST /v1/households/upsert`, `GET /v1/households/{id}` and `GET
/// /v1/households/by_user/{user_id}`. A user reads and writes only their own household.
struct HouseholdRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: HouseholdReadModel
    let membership: MembershipReadModel
    let consistency: ReadConsistency
    let responses: HouseholdResponseCache

    struct UpsertResponse: ResponseEncodable {
        @LowercaseID var householdId: UUID
        let version: Int
        let position: String

        enum CodingKeys: String, CodingKey {
            case householdId = "household_id"
            case version, position
        }
    }

    /// A households-topic token must have reached both projections of that topic that a
    /// household read shows.
    static let readProjections: [Topic: [String]] = [.households: [GatewayProjection.households, GatewayProjection.householdMembers]]

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("households/upsert") { request, context in try await upsert(request, context: context) }
        routes.get("households/by_user/{user_id}") { request, context in try await readByUser(request, context: context) }
        routes.get("households/{id}") { request, context in try await read(request, context: context) }
    }

    /// The first upsert of a user creates their household (with an id derived from the user, so
    /// two racing first upserts make one household) and makes them its member; later upserts
    /// change it. Creation waits until the membership is projected: the client's next request
    /// is almost always about this household.
    func upsert(_ request: Request, context: HearthRequestContext) async throws -> UpsertResponse {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(HouseholdUpsertRequest.self, from: request, context: context).validated()
        // One query answers both the user's households and the stored state of each.
        let firstId = UserIdentity.firstHouseholdId(of: user)
        let rows = try await readModel.upsertBasis(of: user, firstHouseholdId: firstId)
        let households = rows.compactMap(\.currentHousehold)
        let current: UUID?
        if let requested = body.householdId {
            guard households.contains(requested) else { throw APIError.notFound("household") }
            current = requested
        } else {
            current = try MembershipReadModel.select(from: households, header: request.headers[MembershipReadModel.householdHeader])
        }
        let id: UUID
        var basis = rows.first { $0.currentHousehold == current } ?? HouseholdReadModel.UpsertBasis(
            currentHousehold: nil, storedVersion: nil, storedPrefsJSON: nil)
        if let current {
            id = current
        } else if let left = basis.lastDeparture {
            // They left the household their first upsert made: a new one, never a way back in.
            // Its id is derived from the user and their last departure, so a retried or doubled
            // upsert names the same new household (and leaving it too derives another).
            id = NameBasedUUID.make(
                namespace: UserIdentity.firstHouseholdId(of: user), name: "after-leaving/\(Timestamp.format(left))")
            basis = HouseholdReadModel.UpsertBasis(currentHousehold: nil, storedVersion: nil, storedPrefsJSON: nil)
        } else {
            // Their first household, made now, or made by an earlier try whose join is not
            // projected yet (the same id: one household).
            id = firstId
        }
        var prefs = body.prefs
        if body.mode == .merge, let stored = basis.storedPrefsJSON {
            prefs = HouseholdPrefsRules.merged(try readModel.decodePrefs(stored), with: prefs)
        }
        let version = readModel.nextVersion(of: id, stored: basis.storedVersion)
        let event = HouseholdUpserted(householdId: id, householdVersion: version, name: body.name, prefs: prefs, userId: user.uuidString.lowercased())
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        if current == nil {
            let joined = try await publisher.publish(
                UserJoinedHouseholdV2(userId: user, householdId: id, via: "created", inviteCode: nil, role: .owner), correlationId: context.correlationId)
            try await consistency.awaitApplied(joined, projections: [GatewayProjection.users])
            try await consistency.awaitApplied(position, projections: [GatewayProjection.households])
        }
        context.logger.debug("household upserted", metadata: ["household_id": "\(id)", "version": "\(version)", "position": "\(position)"])
        return UpsertResponse(householdId: id, version: version, position: position.description)
    }

    func read(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("household_id", "the household id in the path must be a UUID")
        }
        let pending = try consistency.pendingRead(in: request, projections: Self.readProjections, writtenBy: "a household write")
        if pending != nil {
            // Only members may make the read wait; the read below checks membership again.
            try await membership.requireMember(user, of: id)
            try await consistency.wait(for: pending)
        }
        let key = HouseholdResponseCache.Key(household: id, reader: user, today: .today)
        let body = try await responses.body(for: key, bypassing: pending != nil) {
            guard let household = try await readModel.details(id, visibleTo: user, today: key.today) else { return nil }
            return ByteBuffer(bytes: try context.responseEncoder.encode(household))
        }
        guard let body else { throw APIError.notFound("household") }
        return HouseholdResponseCache.response(body)
    }

    /// Another user's household, which is only ever one the caller shares with them (the one the
    /// request acts on): a user outside it gets a 404.
    func readByUser(_ request: Request, context: HearthRequestContext) async throws -> HouseholdView {
        let user = try context.authenticatedUser()
        guard let other = context.parameters.get("user_id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("user_id", "the user id in the path must be a UUID")
        }
        let pending = try consistency.pendingRead(in: request, projections: Self.readProjections, writtenBy: "a household write")
        guard let own = try await membership.household(of: user, for: request), try await membership.role(of: other, in: own) != nil else {
            throw APIError.notFound("household")
        }
        try await consistency.wait(for: pending)
        guard let household = try await readModel.details(own, today: .today) else { throw APIError.notFound("household") }
        return household
    }
}

extension HouseholdView: ResponseEncodable {}
