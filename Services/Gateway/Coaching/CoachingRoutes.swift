import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// A coach's roster and a household's coaches.
///
/// The coach's side (`role: coach` accounts only; anyone else a 403): `POST /v1/coach/clients
/// {"prospect_id"?}` makes a single-use invite code for a household, `GET /v1/coach/clients`,
/// `DELETE /v1/coach/clients/{household_id}` (access ends at once; the history stays with the
/// household), `POST /v1/coach/prospects {"name", "note"?}` and `GET /v1/coach/prospects`, and
/// `POST /v1/coach/groups {"title"?, "member_ids"}`: a group chat with users of client
/// households, whose members find each other there (`GET /v1/peers`) and nowhere else.
///
/// The household's side: `POST /v1/households/{id}/coaches {"code", "scope"?}` (an owner accepts
/// the invite and chooses what the coach sees), `GET /v1/households/{id}/coaches` (members),
/// `PUT /v1/households/{id}/coaches/{coach_id}/scope` and `DELETE /v1/households/{id}/coaches/{coach_id}`
/// (owners). Every change waits until the `coaching` projection applied it: the coach's next
/// request, on any gateway, is checked against the new scope.
struct CoachingRoutes: Sendable {
    let publisher: EventPublisher
    let coaching: CoachingReadModel
    let users: UserReadModel
    let membership: MembershipReadModel
    let claims: InviteClaims
    let consistency: ReadConsistency

    static let noteLimit = 2000

    struct ScopeBody: Decodable {
        var calendar: String?
        var profileKinds: [String]?
        var tracking: Bool?
        enum CodingKeys: String, CodingKey {
            case calendar
            case profileKinds = "profile_kinds"
            case tracking
        }

        func validated() throws -> CoachScope {
            try CoachScope.validated(calendar: calendar, profileKinds: profileKinds, tracking: tracking)
        }
    }

    struct InviteBody: Decodable {
        var prospectId: String?
        enum CodingKeys: String, CodingKey { case prospectId = "prospect_id" }
    }

    struct ProspectBody: Decodable {
        var name: String
        var note: String?
    }

    struct AcceptBody: Decodable {
        var code: String
        var scope: ScopeBody?
    }

    struct CreatedInvite: ResponseEncodable {
        @LowercaseID var inviteId: UUID
        let code: String
        @OptionalLowercaseID var prospectId: UUID?
        let expiresAt: Date
        let position: String
        enum CodingKeys: String, CodingKey {
            case inviteId = "invite_id"
            case code
            case prospectId = "prospect_id"
            case expiresAt = "expires_at"
            case position
        }
    }

    struct Relationship: ResponseEncodable {
        @LowercaseID var coachId: UUID
        @LowercaseID var householdId: UUID
        /// Nil once the relationship has ended.
        let scope: CoachScope?
        let position: String
        enum CodingKeys: String, CodingKey {
            case coachId = "coach_id"
            case householdId = "household_id"
            case scope, position
        }
    }

    struct ClientList: ResponseEncodable { let clients: [CoachClientView] }
    struct PeerList: ResponseEncodable { let peers: [PeerView] }
    struct GroupBody: Decodable {
        var title: String?
        var memberIds: [String]
        enum CodingKeys: String, CodingKey {
            case title
            case memberIds = "member_ids"
        }
    }
    struct CreatedGroup: ResponseEncodable {
        var chatId: String
        var title: String?
        var memberIds: [String]
        var position: String
        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id"
            case title
            case memberIds = "member_ids"
            case position
        }
    }
    static let maxGroupMembers = 50
    struct ProspectList: ResponseEncodable { let prospects: [CoachProspectView] }
    struct CoachList: ResponseEncodable { let coaches: [HouseholdCoachView] }
    struct AddedProspect: ResponseEncodable {
        let prospect: CoachProspectView
        let position: String
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("coach/clients") { request, context in
            EditedResponse(status: .created, response: try await invite(request, context: context))
        }
        routes.get("coach/clients") { _, context in ClientList(clients: try await coaching.clients(of: try await requireCoach(context))) }
        routes.delete("coach/clients/{household_id}") { _, context in try await endByCoach(context: context) }
        routes.post("coach/prospects") { request, context in
            EditedResponse(status: .created, response: try await addProspect(request, context: context))
        }
        routes.get("coach/prospects") { _, context in ProspectList(prospects: try await coaching.prospects(of: try await requireCoach(context))) }
        routes.post("coach/groups") { request, context in
            EditedResponse(status: .created, response: try await createGroup(request, context: context))
        }
        routes.get("peers") { _, context in PeerList(peers: try await coaching.peers(of: try context.authenticatedUser())) }
        routes.post("households/{id}/coaches") { request, context in
            EditedResponse(status: .created, response: try await accept(request, context: context))
        }
        routes.get("households/{id}/coaches") { _, context in
            let user = try context.authenticatedUser()
            let household = try context.uuidParameter("id", field: "household_id")
            try await membership.requireMember(user, of: household)
            return CoachList(coaches: try await coaching.coaches(of: household))
        }
        routes.put("households/{id}/coaches/{coach_id}/scope") { request, context in try await changeScope(request, context: context) }
        routes.delete("households/{id}/coaches/{coach_id}") { _, context in try await endByOwner(context: context) }
    }

    // MARK: The coach's side

    /// The caller, when their account is a coach's.
    private func requireCoach(_ context: HearthRequestContext) async throws -> UUID {
        let user = try context.authenticatedUser()
        guard try await users.role(of: user) == "coach" else {
            throw APIError(.forbidden, code: "coach_required", message: "only a coach account keeps a roster (the role is chosen at sign-up)")
        }
        return user
    }

    /// A group chat of the coach with users of their client households. Its chat's household id is
    /// its own id (`coach.group_created`, then `chat.created`); it answers once both are applied,
    /// so the members can write at once.
    func createGroup(_ request: Request, context: HearthRequestContext) async throws -> CreatedGroup {
        let coach = try await requireCoach(context)
        let body = try await JSONRequestBody.decode(GroupBody.self, from: request, context: context)
        let title = body.title?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title, title.unicodeScalars.count > 200 { throw APIError.invalid("title", "title must be at most 200 characters") }
        guard !body.memberIds.isEmpty else { throw APIError.invalid("member_ids", "a group needs at least one member") }
        guard body.memberIds.count <= Self.maxGroupMembers else { throw APIError.invalid("member_ids", "a group has at most \(Self.maxGroupMembers) members") }
        var members: [CoachGroupCreated.Member] = []
        for (index, text) in body.memberIds.enumerated() {
            guard let id = UUID(uuidString: text) else { throw APIError.invalid("member_ids[\(index)]", "member_ids[\(index)] must be a user id") }
            guard !members.contains(where: { $0.userId == id }), id != coach else { continue }
            // Someone who is not of a client household is not said to exist.
            guard let household = try await coaching.clientHousehold(of: id, coach: coach) else {
                throw APIError.invalid("member_ids[\(index)]", "member_ids[\(index)] is not a user of one of your client households")
            }
            members.append(.init(userId: id, householdId: household))
        }
        let chatId = EventIdentity.newId("chat")
        let group = try await publisher.publish(CoachGroupCreated(chatId: chatId, coachId: coach, members: members), correlationId: context.correlationId)
        let chat = ChatCreated(
            chatId: chatId, householdId: chatId, title: title?.isEmpty == true ? nil : title, memberIds: [coach] + members.map(\.userId), createdBy: coach)
        let position = try await publisher.publish(chat, correlationId: context.correlationId)
        try await consistency.awaitApplied(group, projections: [GatewayProjection.coaching])
        try await consistency.awaitApplied(position, projections: [ChatsProjection().name])
        context.logger.info("coach group created", metadata: ["chat_id": "\(chatId)", "members": "\(members.count)"])
        return CreatedGroup(
            chatId: chatId.uuidString.lowercased(), title: chat.title, memberIds: chat.memberIds.map { $0.uuidString.lowercased() },
            position: position.description)
    }

    func invite(_ request: Request, context: HearthRequestContext) async throws -> CreatedInvite {
        let coach = try await requireCoach(context)
        let body = try await JSONRequestBody.decodeIfPresent(InviteBody.self, from: request, context: context)
        var prospect: UUID?
        if let text = body?.prospectId {
            guard let id = UUID(uuidString: text) else { throw APIError.invalid("prospect_id", "prospect_id must be a prospect id") }
            guard try await coaching.prospectBelongs(id, to: coach) else { throw APIError.notFound("prospect") }
            prospect = id
        }
        let event = CoachClientInvited(
            coachId: coach, inviteId: EventIdentity.newId("coach_invite"), code: InviteCode.generate(), prospectId: prospect,
            expiresAt: Date().addingTimeInterval(InviteCode.lifetime))
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        // The household redeems it next, on any gateway.
        try await consistency.awaitApplied(position, projections: [GatewayProjection.coaching])
        return CreatedInvite(inviteId: event.inviteId, code: event.code, prospectId: prospect, expiresAt: event.expiresAt, position: position.description)
    }

    func addProspect(_ request: Request, context: HearthRequestContext) async throws -> AddedProspect {
        let coach = try await requireCoach(context)
        let body = try await JSONRequestBody.decode(ProspectBody.self, from: request, context: context)
        let name: String
        do {
            name = try HouseholdMemberRules.normalizedName(body.name)
        } catch let violation as FieldViolation {
            throw APIError.invalid(violation.field, violation.message)
        }
        let note = body.note?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let note, note.unicodeScalars.count > Self.noteLimit {
            throw APIError.invalid("note", "note must be at most \(Self.noteLimit) characters")
        }
        let event = CoachProspectAdded(coachId: coach, prospectId: EventIdentity.newId("coach_prospect"), name: name, note: note?.isEmpty == true ? nil : note)
        let envelope = publisher.envelope(event, correlationId: context.correlationId)
        let position = try await publisher.publish(envelope)
        try await consistency.awaitApplied(position, projections: [GatewayProjection.coaching])
        return AddedProspect(
            prospect: CoachProspectView(
                prospectId: event.prospectId, name: name, note: event.note, householdId: nil, status: "prospect", addedAt: envelope.metadata.occurredAt),
            position: position.description)
    }

    func endByCoach(context: HearthRequestContext) async throws -> Relationship {
        let coach = try await requireCoach(context)
        let household = try context.uuidParameter("household_id", field: "household_id")
        guard try await membership.coachScope(coach, in: household) != nil else { throw APIError.notFound("client") }
        return try await end(coach: coach, household: household, by: coach, context: context)
    }

    // MARK: The household's side

    func accept(_ request: Request, context: HearthRequestContext) async throws -> Relationship {
        let user = try context.authenticatedUser()
        let household = try context.uuidParameter("id", field: "household_id")
        _ = try await membership.requireOwner(user, of: household, to: "choose its coaches and what they see")
        let body = try await JSONRequestBody.decode(AcceptBody.self, from: request, context: context)
        let scope = try body.scope?.validated() ?? .chatOnly
        guard let code = InviteCode.normalized(body.code), let invite = try await coaching.invite(code) else {
            throw APIError.invalid("code", "code is not a coach's invite")
        }
        if invite.acceptedHousehold == household, try await membership.coachScope(invite.coachId, in: household) != nil {
            throw APIError(.conflict, code: "already_client", message: "this household already works with this coach")
        }
        guard invite.expiresAt > Date() else {
            throw APIError(.gone, code: "invite_expired", message: "this invite has expired; ask the coach for a new one")
        }
        let used = APIError(.conflict, code: "invite_used", message: "this invite has already been used")
        guard invite.acceptedHousehold == nil, try await claims.claim(code, for: household) else { throw used }
        let event = CoachClientAccepted(
            coachId: invite.coachId, householdId: household, inviteId: invite.inviteId, prospectId: invite.prospectId, acceptedBy: user, scope: scope)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [GatewayProjection.coaching])
        context.logger.info("coach relationship started", metadata: ["household_id": "\(household)", "coach_id": "\(invite.coachId)"])
        return Relationship(coachId: invite.coachId, householdId: household, scope: scope, position: position.description)
    }

    func changeScope(_ request: Request, context: HearthRequestContext) async throws -> Relationship {
        let user = try context.authenticatedUser()
        let household = try context.uuidParameter("id", field: "household_id")
        let coach = try context.uuidParameter("coach_id", field: "coach_id")
        _ = try await membership.requireOwner(user, of: household, to: "choose its coaches and what they see")
        let scope = try await JSONRequestBody.decode(ScopeBody.self, from: request, context: context).validated()
        guard try await membership.coachScope(coach, in: household) != nil else { throw APIError.notFound("coach") }
        let position = try await publisher.publish(
            CoachScopeChanged(coachId: coach, householdId: household, scope: scope, changedBy: user), correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [GatewayProjection.coaching])
        return Relationship(coachId: coach, householdId: household, scope: scope, position: position.description)
    }

    func endByOwner(context: HearthRequestContext) async throws -> Relationship {
        let user = try context.authenticatedUser()
        let household = try context.uuidParameter("id", field: "household_id")
        let coach = try context.uuidParameter("coach_id", field: "coach_id")
        _ = try await membership.requireOwner(user, of: household, to: "choose its coaches and what they see")
        guard try await membership.coachScope(coach, in: household) != nil else { throw APIError.notFound("coach") }
        return try await end(coach: coach, household: household, by: user, context: context)
    }

    private func end(coach: UUID, household: UUID, by user: UUID, context: HearthRequestContext) async throws -> Relationship {
        let position = try await publisher.publish(
            CoachRelationshipEnded(coachId: coach, householdId: household, endedBy: user), correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [GatewayProjection.coaching])
        context.logger.info("coach relationship ended", metadata: ["household_id": "\(household)", "coach_id": "\(coach)"])
        return Relationship(coachId: coach, householdId: household, scope: nil, position: position.description)
    }
}
