import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// Body of `POST /v1/users/upsert`: any of the three; absent fields keep their value.
struct UserProfileRequest: Decodable {
    var displayName: String?
    var locale: String?
    var timeZone: String?

    enum CodingKeys: String, CodingKey {
        case displayName = "display_name"
        case locale
        case timeZone = "time_zone"
    }

    func validated() throws -> UserProfileRequest {
        guard displayName != nil || locale != nil || timeZone != nil else {
            throw APIError.invalid("body", "give at least one of display_name, locale, time_zone")
        }
        do {
            return UserProfileRequest(
                displayName: try displayName.map(UserProfileRules.displayName),
                locale: try locale.map(UserProfileRules.locale),
                timeZone: try timeZone.map(UserProfileRules.timeZone))
        } catch let violation as FieldViolation {
            throw APIError.invalid(violation.field, violation.message)
        }
    }
}

/// `POST /v1/users/upsert` and `GET /v1/me`.
struct UserRoutes: Sendable {
    let publisher: EventPublisher
    let users: UserReadModel
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    struct UpdatedProfile: ResponseEncodable {
        let user: UserView
        let position: String

        func encode(to encoder: any Encoder) throws {
            try user.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(position, forKey: .position)
        }

        enum CodingKeys: String, CodingKey { case position }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("users/upsert") { request, context in try await upsert(request, context: context) }
        routes.get("me") { request, context in try await me(request, context: context) }
    }

    func upsert(_ request: Request, context: HearthRequestContext) async throws -> UpdatedProfile {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(UserProfileRequest.self, from: request, context: context).validated()
        let event = UserProfileUpdated(userId: user, displayName: body.displayName, locale: body.locale, timeZone: body.timeZone)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        // The answer is the profile as it will read once projected: stored values, overlaid.
        var view = try await users.find(user) ?? UserView(userId: user)
        view.displayName = body.displayName ?? view.displayName
        view.locale = body.locale ?? view.locale
        view.timeZone = body.timeZone ?? view.timeZone
        return UpdatedProfile(user: view, position: position.description)
    }

    func me(_ request: Request, context: HearthRequestContext) async throws -> UserView {
        let user = try context.authenticatedUser()
        let pending = try consistency.pendingRead(in: request, projections: [.users: [GatewayProjection.users]], writtenBy: "a user write")
        try await consistency.wait(for: pending)
        var view: UserView
        if let found = try await users.find(user) {
            view = found
        } else {
            // A valid token whose registration is not projected yet: say what is known.
            view = UserView(userId: user)
            view.memberships = try await membership.memberships(of: user).map { MembershipView(householdId: $0.householdId, role: $0.role.rawValue) }
            view.householdId = view.memberships.count == 1 ? view.memberships[0].householdId : nil
        }
        if let header = request.headers[MembershipReadModel.householdHeader] {
            // The household this client acts on, checked like every other request's.
            view.householdId = try MembershipReadModel.select(from: view.memberships.map(\.householdId), header: header)
        }
        return view
    }
}

extension UserView: ResponseEncodable {
    init(userId: UUID, householdId: UUID? = nil) {
        self.init(userId: userId, provider: nil, role: nil, displayName: nil, locale: nil, timeZone: nil, householdId: householdId, registeredAt: nil, deletion: nil)
    }
}
