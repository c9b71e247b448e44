import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// Body of `POST /v1/households/{id}/members`.
struct AddMemberRequest: Decodable {
    var name: String
    var role: String
    var birthdate: String?
    /// A child's sex (`female` or `male`), for growth percentiles; tracking keeps it.
    var sex: String?

    struct Validated {
        var name: String
        var role: MemberRole
        var birthdate: CalendarDay?
        var sex: GrowthSex?
    }

    func validated(today: CalendarDay) throws -> Validated {
        do {
            let role = try HouseholdMemberRules.role(role)
            var growthSex: GrowthSex?
            if let sex {
                guard role == .child else { throw FieldViolation(field: "sex", message: "sex is recorded for children only") }
                guard let parsed = GrowthSex(rawValue: sex.lowercased()) else { throw FieldViolation(field: "sex", message: "sex must be female or male") }
                growthSex = parsed
            }
            return Validated(
                name: try HouseholdMemberRules.normalizedName(name),
                role: role,
                birthdate: try birthdate.map { try HouseholdMemberRules.birthdate($0, today: today) },
                sex: growthSex)
        } catch let violation as FieldViolation {
            throw APIError.invalid(violation.field, violation.message)
        }
    }
}

/// `POST /v1/households/{id}/members`: adds a person to the caller's household.
struct MemberRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: HouseholdReadModel
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    struct AddedMember: ResponseEncodable {
        let member: MemberView
        let position: String

        func encode(to encoder: any Encoder) throws {
            try member.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(position, forKey: .position)
        }

        enum CodingKeys: String, CodingKey { case position }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("households/{id}/members") { request, context in
            EditedResponse(status: .created, response: try await add(request, context: context))
        }
    }

    func add(_ request: Request, context: HearthRequestContext) async throws -> AddedMember {
        let user = try context.authenticatedUser()
        guard let householdId = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("household_id", "the household id in the path must be a UUID")
        }
        try await membership.requireMember(user, of: householdId)
        let today = CalendarDay.today
        let body = try await JSONRequestBody.decode(AddMemberRequest.self, from: request, context: context).validated(today: today)
        let event = HouseholdMemberAdded(
            householdId: householdId, memberId: EventIdentity.newId("member"), name: body.name, role: body.role.rawValue,
            birthdate: body.birthdate?.isoDate, addedBy: user)
        // The cap holds under concurrent adds, on any gateway: counted and added under the
        // household's lock, released only once the member is projected (so the next count sees it).
        let (publisher, readModel, consistency) = (self.publisher, self.readModel, self.consistency)
        let correlationId = context.correlationId
        let position = try await membership.serialized(householdId) {
            guard try await readModel.memberCount(of: householdId) < HouseholdMemberRules.maxMembers else {
                throw APIError(.conflict, code: "too_many_members", message: "a household has at most \(HouseholdMemberRules.maxMembers) members")
            }
            let position = try await publisher.publish(event, correlationId: correlationId)
            if let sex = body.sex {
                // On the tracking topic, keyed by the household, where tracking reads it (as
                // `PUT /v1/children/{id}/profile` publishes it). The answer's position is the member's.
                _ = try await publisher.publish(
                    ChildProfileSet(childId: event.memberId, householdId: householdId, sex: sex.rawValue, setBy: user), correlationId: correlationId)
            }
            try await consistency.awaitApplied(position, projections: [GatewayProjection.householdMembers])
            return position
        }
        let member = MemberView(
            memberId: event.memberId, householdId: householdId, name: event.name, role: event.role, birthdate: event.birthdate, today: today)
        return AddedMember(member: member, position: position.description)
    }
}
