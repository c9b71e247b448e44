import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `POST /v1/households/{id}/invites` makes a single-use code; `POST /v1/invites/{code}/accept`
/// moves the caller into that household (a user belongs to one household at a time).
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
        let expiresAt: Date
        let position: String

        enum CodingKeys: String, CodingKey {
            case code
            case householdId = "household_id"
            case expiresAt = "expires_at"
            case position
        }
    }

    struct AcceptedInvite: ResponseEncodable {
        @LowercaseID var householdId: UUID
        @LowercaseID var userId: UUID
        let position: String?

        enum CodingKeys: String, CodingKey {
            case householdId = "household_id"
            case userId = "user_id"
            case position
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
        try await membership.requireMember(user, of: householdId)
        let event = HouseholdInviteCreated(
            householdId: householdId, code: InviteCode.generate(), createdBy: user, expiresAt: Date().addingTimeInterval(InviteCode.lifetime))
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [GatewayProjection.householdMembers])
        context.logger.info("invite created", metadata: ["household_id": "\(householdId)"])
        return CreatedInvite(code: event.code, householdId: householdId, expiresAt: event.expiresAt, position: position.description)
    }

    func accept(_ request: Request, context: HearthRequestContext) async throws -> AcceptedInvite {
        let user = try context.authenticatedUser()
        guard let code = context.parameters.get("code").flatMap(InviteCode.normalized),
              let invite = try await invites.find(code)
        else { throw APIError.notFound("invite") }
        let previous = try await membership.household(of: user)
        if previous == invite.householdId {
            return AcceptedInvite(householdId: invite.householdId, userId: user, position: nil)
        }
        guard invite.expiresAt > Date() else {
            throw APIError(.gone, code: "invite_expired", message: "this invite has expired; ask for a new one")
        }
        let used = APIError(.conflict, code: "invite_used", message: "this invite has already been used")
        if let acceptedBy = invite.acceptedBy, acceptedBy != user { throw used }
        guard try await claims.claim(code, for: user) else { throw used }
        try await publisher.publish(
            HouseholdInviteAccepted(householdId: invite.householdId, code: code, userId: user), correlationId: context.correlationId)
        let joined = try await publisher.publish(
            UserJoinedHousehold(userId: user, householdId: invite.householdId, via: "invite", inviteCode: code), correlationId: context.correlationId)
        if let previous {
            // The household left sends its tracking reminders (next feeds, doses) to this user no
            // more: said on its own key, in order with its logs, so the notifier's plans replay alike.
            try await publisher.publish(
                CaregiverRemindersSet(
                    userId: user, householdId: previous, feedReminders: false, feedLeadMinutes: 30, medicationReminders: false,
                    medicationBreaksQuietHours: false, timeZone: nil),
                correlationId: context.correlationId)
        }
        try await consistency.awaitApplied(joined, projections: [GatewayProjection.users])
        context.logger.info("invite accepted", metadata: ["household_id": "\(invite.householdId)"])
        return AcceptedInvite(householdId: invite.householdId, userId: user, position: joined.description)
    }
}
