import Foundation
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// How a user's membership of a household ends or changes:
/// `POST /v1/households/{id}/leave`, `DELETE /v1/households/{id}/members/{user_id}` (owners
/// only) and `PUT /v1/households/{id}/members/{user_id}/role` (owners only). Every access that
/// follows membership (chats and their streams, search, the assistant's context, calendar feeds,
/// tracking reminders) ends with it, so each waits until the users projection has applied the
/// change before answering: the next request, on any gateway, is refused.
struct MembershipRoutes: Sendable {
    let publisher: EventPublisher
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    struct Changed: ResponseEncodable {
        @LowercaseID var householdId: UUID
        @LowercaseID var userId: UUID
        /// The role now held; nil once the membership has ended.
        let role: String?
        let position: String

        enum CodingKeys: String, CodingKey {
            case householdId = "household_id"
            case userId = "user_id"
            case role, position
        }
    }

    struct RoleRequest: Decodable {
        var role: String
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("households/{id}/leave") { request, context in try await leave(request, context: context) }
        routes.delete("households/{id}/members/{user_id}") { request, context in try await remove(request, context: context) }
        routes.put("households/{id}/members/{user_id}/role") { request, context in try await changeRole(request, context: context) }
    }

    func leave(_ request: Request, context: HearthRequestContext) async throws -> Changed {
        let user = try context.authenticatedUser()
        let household = try context.uuidParameter("id", field: "household_id")
        return try await membership.serialized(household) {
            let members = try await membership.members(of: household)
            guard let role = members[user] else { throw APIError.notFound("household") }
            if role == .owner, !members.contains(where: { $0.key != user && $0.value == .owner }) {
                throw APIError(
                    .conflict, code: "last_owner",
                    message: "you are this household's only owner: make another member an owner first (PUT /v1/households/{id}/members/{user_id}/role)")
            }
            return try await end(user, in: household, removedBy: nil, context: context)
        }
    }

    func remove(_ request: Request, context: HearthRequestContext) async throws -> Changed {
        let user = try context.authenticatedUser()
        let household = try context.uuidParameter("id", field: "household_id")
        let target = try context.uuidParameter("user_id")
        return try await membership.serialized(household) {
            let members = try await membership.requireOwner(user, of: household, to: "manage its members")
            guard members[target] != nil else { throw APIError.notFound("member") }
            guard target != user else {
                throw APIError(.conflict, code: "use_leave", message: "to leave the household yourself, use POST /v1/households/{id}/leave")
            }
            return try await end(target, in: household, removedBy: user, context: context)
        }
    }

    func changeRole(_ request: Request, context: HearthRequestContext) async throws -> Changed {
        let user = try context.authenticatedUser()
        let household = try context.uuidParameter("id", field: "household_id")
        let target = try context.uuidParameter("user_id")
        let body = try await JSONRequestBody.decode(RoleRequest.self, from: request, context: context)
        guard let role = HouseholdRole(rawValue: body.role) else {
            throw APIError.invalid("role", "role must be one of owner, adult, caregiver")
        }
        let position = try await membership.serialized(household) {
            let members = try await membership.requireOwner(user, of: household, to: "manage its members")
            guard let current = members[target] else { throw APIError.notFound("member") }
            if current == .owner, role != .owner, !members.contains(where: { $0.key != target && $0.value == .owner }) {
                throw APIError(.conflict, code: "last_owner", message: "a household keeps at least one owner")
            }
            let position = try await publisher.publish(
                UserHouseholdRoleChanged(userId: target, householdId: household, role: role, changedBy: user), correlationId: context.correlationId)
            // Applied before the lock is let go: the next change reads this one.
            try await consistency.awaitApplied(position, projections: [GatewayProjection.users])
            return position
        }
        context.logger.info("household role changed", metadata: ["household_id": "\(household)", "role": "\(role.rawValue)"])
        return Changed(householdId: household, userId: target, role: role.rawValue, position: position.description)
    }

    /// The membership ends on the user's key, and the household's tracking reminders stop
    /// reaching them (said on the household's key, in order with its logs, as the notifier's
    /// plans replay alike).
    private func end(_ user: UUID, in household: UUID, removedBy: UUID?, context: HearthRequestContext) async throws -> Changed {
        let left = try await publisher.publish(
            UserLeftHousehold(userId: user, householdId: household, removedBy: removedBy), correlationId: context.correlationId)
        // A caregiver's tracking reminders are per household: this one's are turned off (a nanny
        // leaving one family keeps the other's).
        try await publisher.publish(
            CaregiverRemindersSet(
                userId: user, householdId: household, feedReminders: false, feedLeadMinutes: 30, medicationReminders: false,
                medicationBreaksQuietHours: false, timeZone: nil),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(left, projections: [GatewayProjection.users])
        context.logger.info(
            removedBy == nil ? "household left" : "household member removed", metadata: ["household_id": "\(household)"])
        return Changed(householdId: household, userId: user, role: nil, position: left.description)
    }
}
