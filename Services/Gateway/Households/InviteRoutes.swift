import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `POST /v1/households/{id}/invites` makes a single-use code for an adult or a caregiver;
/// `POST /v1/invites/{code}/accept` adds the caller to that household, beside any they already
/// belong to (a nanny of two families, separated parents).
///
/// Both wait for their projections before answering: the invite must be readable by whoever
/// redeems it (on any gateway instance), and the new member's next request must pass
/// authorization. Single use is decided by a claim in Postgres (`InviteClaims`) before anything
/// is published: of two users redeeming one code in the same instant, one gets in and the other
/// a 409.
struct InviteRoutes: Sendable {
    let publisher: EventPublisher
    let invites: InviteReadModel
    let claims: InviteClaims
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    struct CreatedInvite: ResponseEncodable {
        let code: String
        @LowercaseID var householdId: UUID
        let role: String
        let expiresAt: Date
        let position: String

        enum CodingKeys: String, CodingKey {
            case code
            case householdId = "household_id"
            case role
            case expiresAt = "expires_at"
            case position
        }
    }

    /// Body of `POST /v1/households/{id}/invites`, optional: the role the invitee joins in.
    struct InviteRequest: Decodable {
        var role: String?
    }

    struct AcceptedInvite: ResponseEncodable {
        @LowercaseID var householdId: UUID
        @LowercaseID var userId: UUID
        let role: String
        let position: String?

        enum CodingKeys: String, CodingKey {
            case householdId = "household_id"
            case userId = "user_id"
            case role, position
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("households/{id}/invites") { request, context in
            EditedResponse(status: .created, response: try await create(request, context: context))
        }
        routes.post("invites/{code}/accept") { request, context in try await accept(request, context: context) }
    }

    func create(_ request: Request, context: HearthRequestContext) async throws -> CreatedInvite {
        let user = try context.authenticatedUser()
        guard let householdId = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("household_id", "the household id in the path must be a UUID")
        }
        var role = HouseholdRole.adult
        if let text = try await JSONRequestBody.decodeIfPresent(InviteRequest.self, from: request, context: context)?.role {
            guard let chosen = HouseholdRole(rawValue: text), chosen != .owner else {
                throw APIError.invalid("role", "role must be adult or caregiver (owners are made with PUT …/members/{user_id}/role)")
            }
            role = chosen
        }
        guard let inviter = try await membership.role(of: user, in: householdId) else { throw APIError.notFound("household") }
        guard inviter != .caregiver else {
            throw APIError(.forbidden, code: "adult_required", message: "caregivers cannot invite people into the household")
        }
        let event = HouseholdInviteCreatedV2(
            householdId: householdId, code: InviteCode.generate(), createdBy: user, expiresAt: Date().addingTimeInterval(InviteCode.lifetime),
            role: role)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [GatewayProjection.householdMembers])
        context.logger.info("invite created", metadata: ["household_id": "\(householdId)"])
        return CreatedInvite(
            code: event.code, householdId: householdId, role: role.rawValue, expiresAt: event.expiresAt, position: position.description)
    }

    func accept(_ request: Request, context: HearthRequestContext) async throws -> AcceptedInvite {
        let user = try context.authenticatedUser()
        guard let code = context.parameters.get("code").flatMap(InviteCode.normalized),
              let invite = try await invites.find(code)
        else { throw APIError.notFound("invite") }
        if let held = try await membership.role(of: user, in: invite.householdId) {
            return AcceptedInvite(householdId: invite.householdId, userId: user, role: held.rawValue, position: nil)
        }
        guard invite.expiresAt > Date() else {
            throw APIError(.gone, code: "invite_expired", message: "this invite has expired; ask for a new one")
        }
        let used = APIError(.conflict, code: "invite_used", message: "this invite has already been used")
        // An accepted invite is spent, also for the one who accepted it: having left (or been
        // removed), they come back only through a new invite. One's own invite lets nobody in.
        if invite.acceptedBy != nil { throw used }
        guard invite.createdBy != user else {
            throw APIError(.conflict, code: "own_invite", message: "an invite is for someone else; ask a member of the household for one")
        }
        guard try await claims.claim(code, for: user) else { throw used }
        try await publisher.publish(
            HouseholdInviteAccepted(householdId: invite.householdId, code: code, userId: user), correlationId: context.correlationId)
        let joined = try await publisher.publish(
            UserJoinedHouseholdV2(userId: user, householdId: invite.householdId, via: "invite", inviteCode: code, role: invite.role),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(joined, projections: [GatewayProjection.users])
        context.logger.info("invite accepted", metadata: ["household_id": "\(invite.householdId)"])
        return AcceptedInvite(householdId: invite.householdId, userId: user, role: invite.role.rawValue, position: joined.description)
    }
}
