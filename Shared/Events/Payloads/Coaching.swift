import Foundation

/// What a coach sees of a client household, chosen by the household's owners. Chat is always
/// part of it (a coaching relationship is a conversation); the rest is opt-in.
public struct CoachScope: Codable, Sendable, Equatable {
    /// `none`, `read` (the household calendar) or `write` (read, and add sessions to it).
    public var calendar: String
    /// The kinds of profile facts the coach may read (`allergy`, `diet`, `schedule`, …); empty:
    /// none.
    public var profileKinds: [String]
    /// Whether the coach may read the children's tracking summaries.
    public var tracking: Bool

    public static let calendarLevels = ["none", "read", "write"]
    /// Chat only: what a relationship starts with until the owners choose more.
    public static let chatOnly = CoachScope(calendar: "none", profileKinds: [], tracking: false)

    public init(calendar: String, profileKinds: [String], tracking: Bool) {
        self.calendar = calendar
        self.profileKinds = profileKinds
        self.tracking = tracking
    }

    enum CodingKeys: String, CodingKey {
        case calendar
        case profileKinds = "profile_kinds"
        case tracking
    }
}

/// `coach.client_invited` v1: a coach made a single-use code a household's owner redeems to
/// become their client (`POST /v1/households/{id}/coaches`), for a prospect when `prospect_id`
/// is set. On the users topic, keyed by the coach: a coach's roster stays in order.
public struct CoachClientInvited: EventPayload {
    public static let eventType = "coach.client_invited"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(
        personal: ["code": .user("coach_id", erased: .string(""))],
        notPersonal: ["coach_id", "invite_id", "prospect_id", "expires_at"])

    public var coachId: UUID
    public var inviteId: UUID
    public var code: String
    public var prospectId: UUID?
    public var expiresAt: Date

    public var aggregateKey: String { coachId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case coachId = "coach_id"
        case inviteId = "invite_id"
        case code
        case prospectId = "prospect_id"
        case expiresAt = "expires_at"
    }

    public init(coachId: UUID, inviteId: UUID, code: String, prospectId: UUID?, expiresAt: Date) {
        self.coachId = coachId
        self.inviteId = inviteId
        self.code = code
        self.prospectId = prospectId
        self.expiresAt = Timestamp.rounded(expiresAt)
    }
}

/// `coach.prospect_added` v1: someone a coach met before they are a client (a name and a note,
/// the coach's own data).
public struct CoachProspectAdded: EventPayload {
    public static let eventType = "coach.prospect_added"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(
        personal: ["name": .user("coach_id", erased: .string("")), "note": .user("coach_id")],
        notPersonal: ["coach_id", "prospect_id"])

    public var coachId: UUID
    public var prospectId: UUID
    public var name: String
    public var note: String?

    public var aggregateKey: String { coachId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case coachId = "coach_id"
        case prospectId = "prospect_id"
        case name, note
    }

    public init(coachId: UUID, prospectId: UUID, name: String, note: String?) {
        self.coachId = coachId
        self.prospectId = prospectId
        self.name = name
        self.note = note
    }
}

/// `coach.client_accepted` v1: an owner of the household redeemed the coach's invite; the
/// relationship starts with `scope` (the prospect of the invite, if any, is now this client).
public struct CoachClientAccepted: EventPayload {
    public static let eventType = "coach.client_accepted"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["coach_id", "household_id", "invite_id", "prospect_id", "accepted_by", "scope"])

    public var coachId: UUID
    public var householdId: UUID
    public var inviteId: UUID
    public var prospectId: UUID?
    public var acceptedBy: UUID
    public var scope: CoachScope

    public var aggregateKey: String { coachId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case coachId = "coach_id"
        case householdId = "household_id"
        case inviteId = "invite_id"
        case prospectId = "prospect_id"
        case acceptedBy = "accepted_by"
        case scope
    }

    public init(coachId: UUID, householdId: UUID, inviteId: UUID, prospectId: UUID?, acceptedBy: UUID, scope: CoachScope) {
        self.coachId = coachId
        self.householdId = householdId
        self.inviteId = inviteId
        self.prospectId = prospectId
        self.acceptedBy = acceptedBy
        self.scope = scope
    }
}

/// `coach.scope_changed` v1: an owner changed what the coach sees of the household; it applies
/// to the coach's next request.
public struct CoachScopeChanged: EventPayload {
    public static let eventType = "coach.scope_changed"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["coach_id", "household_id", "scope", "changed_by"])

    public var coachId: UUID
    public var householdId: UUID
    public var scope: CoachScope
    public var changedBy: UUID

    public var aggregateKey: String { coachId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case coachId = "coach_id"
        case householdId = "household_id"
        case scope
        case changedBy = "changed_by"
    }

    public init(coachId: UUID, householdId: UUID, scope: CoachScope, changedBy: UUID) {
        self.coachId = coachId
        self.householdId = householdId
        self.scope = scope
        self.changedBy = changedBy
    }
}

/// `coach.relationship_ended` v1: the coach or an owner ended it. The coach's access ends at
/// once; what was said and shared stays with the household.
public struct CoachRelationshipEnded: EventPayload {
    public static let eventType = "coach.relationship_ended"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["coach_id", "household_id", "ended_by"])

    public var coachId: UUID
    public var householdId: UUID
    public var endedBy: UUID

    public var aggregateKey: String { coachId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case coachId = "coach_id"
        case householdId = "household_id"
        case endedBy = "ended_by"
    }

    public init(coachId: UUID, householdId: UUID, endedBy: UUID) {
        self.coachId = coachId
        self.householdId = householdId
        self.endedBy = endedBy
    }
}

/// `coach.group_created` v1: a coach's group chat across client households (a sleep
/// consultant's group for the families they work with). The chat itself is a `chat.created`
/// whose household id is the chat's own id: a group is no household, so what applies to a
/// household's chats (access, search, pushes) applies to it through `household_chat_access()`,
/// which lets in the coach and each member while they belong to the household they joined through
/// and it is still the coach's client. Members find each other there, and nowhere else.
public struct CoachGroupCreated: EventPayload {
    public static let eventType = "coach.group_created"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["chat_id", "coach_id", "members[].user_id", "members[].household_id"])

    public struct Member: Codable, Sendable, Equatable {
        public var userId: UUID
        /// The client household the member is in the group through.
        public var householdId: UUID

        public init(userId: UUID, householdId: UUID) {
            self.userId = userId
            self.householdId = householdId
        }

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case householdId = "household_id"
        }
    }

    public var chatId: UUID
    public var coachId: UUID
    public var members: [Member]

    public var aggregateKey: String { coachId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case coachId = "coach_id"
        case members
    }

    public init(chatId: UUID, coachId: UUID, members: [Member]) {
        self.chatId = chatId
        self.coachId = coachId
        self.members = members
    }
}

public enum CoachingEvents {
    public static let payloadTypes: [any EventPayload.Type] = [
        CoachClientInvited.self, CoachProspectAdded.self, CoachClientAccepted.self, CoachScopeChanged.self, CoachRelationshipEnded.self,
        CoachGroupCreated.self,
    ]
}
