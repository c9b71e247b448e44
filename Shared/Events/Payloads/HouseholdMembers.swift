import Foundation

/// `household.member_added` v1: a person (a parent, a child, a carer, a coach) was added to a
/// household. Members are people the household plans for; they need not have an account.
public struct HouseholdMemberAdded: EventPayload {
    public static let eventType = "household.member_added"
    public static let version = 1
    public static let topic = Topic.households
    public static let privacy = PayloadPrivacy(
        personal: [
            "name": .household("household_id", erased: .string("")),
            "birthdate": .household("household_id"),
        ],
        notPersonal: ["household_id", "member_id", "role", "added_by"])

    public var householdId: UUID
    public var memberId: UUID
    public var name: String
    /// `parent`, `child`, `caregiver` or `coach`.
    public var role: String
    /// `YYYY-MM-DD`; ages are computed from it when read, never stored.
    public var birthdate: String?
    public var addedBy: UUID

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case memberId = "member_id"
        case name, role, birthdate
        case addedBy = "added_by"
    }

    public init(householdId: UUID, memberId: UUID, name: String, role: String, birthdate: String?, addedBy: UUID) {
        self.householdId = householdId
        self.memberId = memberId
        self.name = name
        self.role = role
        self.birthdate = birthdate
        self.addedBy = addedBy
    }
}

/// `household.invite_created` v1: a code another user can redeem to join the household, until
/// `expires_at` (fixed in the event, so the read model does not depend on when it is rebuilt).
public struct HouseholdInviteCreated: EventPayload {
    public static let eventType = "household.invite_created"
    public static let version = 1
    public static let topic = Topic.households
    public static let privacy = PayloadPrivacy(
        personal: ["code": .household("household_id", erased: .string(""))],
        notPersonal: ["household_id", "created_by", "expires_at"])

    public var householdId: UUID
    public var code: String
    public var createdBy: UUID
    public var expiresAt: Date

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case code
        case createdBy = "created_by"
        case expiresAt = "expires_at"
    }

    public init(householdId: UUID, code: String, createdBy: UUID, expiresAt: Date) {
        self.householdId = householdId
        self.code = code
        self.createdBy = createdBy
        self.expiresAt = Timestamp.rounded(expiresAt)
    }
}

/// `household.invite_created` v2: v1 plus the `role` the invitee joins in (`adult` or
/// `caregiver`; owners are made, not invited).
public struct HouseholdInviteCreatedV2: EventPayload {
    public static let eventType = HouseholdInviteCreated.eventType
    public static let version = 2
    public static let topic = Topic.households
    public static let privacy = PayloadPrivacy(
        personal: ["code": .household("household_id", erased: .string(""))],
        notPersonal: ["household_id", "created_by", "expires_at", "role"])

    public var householdId: UUID
    public var code: String
    public var createdBy: UUID
    public var expiresAt: Date
    public var role: HouseholdRole

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case code
        case createdBy = "created_by"
        case expiresAt = "expires_at"
        case role
    }

    public init(householdId: UUID, code: String, createdBy: UUID, expiresAt: Date, role: HouseholdRole) {
        self.householdId = householdId
        self.code = code
        self.createdBy = createdBy
        self.expiresAt = Timestamp.rounded(expiresAt)
        self.role = role
    }

    /// v1 → v2: every v1 invite made an adult member.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["role"] == nil { fields["role"] = .string(HouseholdRole.adult.rawValue) }
        return .object(fields)
    }
}

/// `household.invite_accepted` v1: the code was redeemed and is used up. The user's move into the
/// household is its own event, `user.household_joined`, on the user's key.
public struct HouseholdInviteAccepted: EventPayload {
    public static let eventType = "household.invite_accepted"
    public static let version = 1
    public static let topic = Topic.households
    public static let privacy = PayloadPrivacy(
        personal: ["code": .household("household_id", erased: .string(""))],
        notPersonal: ["household_id", "user_id"])

    public var householdId: UUID
    public var code: String
    public var userId: UUID

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case code
        case userId = "user_id"
    }

    public init(householdId: UUID, code: String, userId: UUID) {
        self.householdId = householdId
        self.code = code
        self.userId = userId
    }
}
