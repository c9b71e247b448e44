import Foundation
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `GET /v1/households/{id}/profile`, `POST /v1/profile/facts/{id}/confirm|reject|link`.
///
/// Users of a household are its adults (children do not sign in), so any of them may decide on
/// a fact as the parent the safety rule asks for.
struct ProfileRoutes: Sendable {
    let publisher: EventPublisher
    let profile: ProfileReadModel
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    struct Profile: ResponseEncodable {
        var householdId: String
        var facts: [ProfileFactView]
        var constraints: [ProfileConstraintView]
        /// Allergens the household's children reacted to (tracking), which plans avoid too.
        var childReactions: [ChildReactionView]
        enum CodingKeys: String, CodingKey {
            case householdId = "household_id"
            case facts, constraints
            case childReactions = "child_reactions"
        }
    }

    struct Decision: ResponseEncodable {
        var factId: String
        var status: String
        var position: String
        enum CodingKeys: String, CodingKey {
            case factId = "fact_id"
            case status, position
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("households/{id}/profile") { request, context in
            try await read(request, context: context)
        }
        routes.post("profile/facts/{id}/confirm") { _, context in
            try await decide(context: context, confirm: true)
        }
        routes.post("profile/facts/{id}/reject") { _, context in
            try await decide(context: context, confirm: false)
        }
        routes.post("profile/facts/{id}/link") { request, context in
            try await link(request, context: context)
        }
    }

    struct LinkBody: Decodable {
        var memberId: String
        enum CodingKeys: String, CodingKey {
            case memberId = "member_id"
        }
    }

    struct Linked: ResponseEncodable {
        var factId: String
        var memberId: String
        var subject: String
        var position: String
        enum CodingKeys: String, CodingKey {
            case factId = "fact_id"
            case memberId = "member_id"
            case subject, position
        }
    }

    /// Says who a fact about an unknown subject is about: a member of the household (to add
    /// someone new, `POST /v1/households/{id}/members` first). Waits until the profile has it, so
    /// a plan asked for next already avoids a linked allergen.
    func link(_ request: Request, context: HearthRequestContext) async throws -> Linked {
        let user = try context.authenticatedUser()
        let factId = try context.uuidParameter("id", field: "fact_id")
        let body = try await JSONRequestBody.decode(LinkBody.self, from: request, context: context)
        guard let memberId = UUID(uuidString: body.memberId) else { throw APIError.invalid("member_id", "member_id must be a UUID") }
        // A member added a moment ago: its position, sent back, waits until it is projected.
        let pending = try consistency.pendingRead(
            in: request, projections: [.households: [GatewayProjection.householdMembers]], writtenBy: "POST /v1/households/{id}/members")
        guard let fact = try await profile.fact(factId), try await membership.role(of: user, in: fact.householdId) != nil else {
            throw APIError.notFound("fact")
        }
        guard fact.unknownSubject else {
            throw APIError(.conflict, code: "already_linked", message: "the fact is already about a member of the household")
        }
        guard fact.status != "rejected" else { throw APIError(.conflict, code: "already_decided", message: "the fact was rejected") }
        try await consistency.wait(for: pending)
        guard let name = try await profile.memberName(memberId, in: fact.householdId) else {
            throw APIError.invalid("member_id", "member_id is not a member of the fact's household (add them with POST /v1/households/{id}/members first)")
        }
        let position = try await publisher.publish(
            ProfileFactLinked(factId: factId, householdId: fact.householdId, memberId: memberId, subject: name, linkedBy: user),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [ProfileFactsProjection().name])
        return Linked(factId: factId.uuidString.lowercased(), memberId: memberId.uuidString.lowercased(), subject: name, position: position.description)
    }

    func read(_ request: Request, context: HearthRequestContext) async throws -> Profile {
        let user = try context.authenticatedUser()
        guard let householdId = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("household_id", "the household id in the path must be a UUID")
        }
        let pending = try consistency.pendingRead(
            in: request, projections: [.profile: [ProfileFactsProjection().name]], writtenBy: "POST /v1/profile/facts/{id}/confirm|reject")
        // A member reads it all; a coach only the kinds the owners chose (and the children's
        // reactions with tracking); anyone else, or a coach given no profile, gets a 404.
        var coachScope: CoachScope?
        if try await membership.role(of: user, in: householdId) == nil {
            guard let scope = try await membership.coachScope(user, in: householdId), scope.allows(.profile) else {
                throw APIError.notFound("household")
            }
            coachScope = scope
        }
        try await consistency.wait(for: pending)
        var (facts, constraints, reactions) = try await profile.profile(of: householdId)
        if let coachScope {
            facts = facts.filter { coachScope.profileKinds.contains($0.kind) }
            constraints = constraints.filter { coachScope.profileKinds.contains($0.kind) }
            if !coachScope.tracking { reactions = [] }
        }
        return Profile(householdId: householdId.uuidString.lowercased(), facts: facts, constraints: constraints, childReactions: reactions)
    }

    func decide(context: HearthRequestContext, confirm: Bool) async throws -> Decision {
        let user = try context.authenticatedUser()
        guard let factId = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("fact_id", "the fact id in the path must be a UUID")
        }
        guard let fact = try await profile.fact(factId), try await membership.role(of: user, in: fact.householdId) != nil else {
            throw APIError.notFound("fact")
        }
        guard fact.status == "proposed" else {
            throw APIError(.conflict, code: "already_decided", message: "the fact is already \(fact.status)")
        }
        if confirm, fact.unknownSubject {
            throw APIError(
                .conflict, code: "link_first",
                message: "the fact is about someone who is not in the household yet: link it to a member (POST /v1/profile/facts/{id}/link) before confirming it")
        }
        let position: EventPosition
        if confirm {
            position = try await publisher.publish(
                ProfileFactConfirmed(factId: factId, householdId: fact.householdId, confirmedBy: user), correlationId: context.correlationId)
        } else {
            position = try await publisher.publish(
                ProfileFactRejected(factId: factId, householdId: fact.householdId, rejectedBy: user), correlationId: context.correlationId)
        }
        return Decision(factId: factId.uuidString.lowercased(), status: confirm ? "confirmed" : "rejected", position: position.description)
    }
}
