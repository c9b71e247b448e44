import Foundation

/// `user.registered` v1: someone signed in for the first time. Keyed by the user id, which is
/// derived from (provider, subject), so all events of one Apple `sub` share a key and a partition.
public struct UserRegistered: EventPayload {
    public static let eventType = "user.registered"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(
        personal: ["subject": .user("user_id"), "display_name": .user("user_id")],
        notPersonal: ["user_id", "provider"])

    public var userId: UUID
    /// `apple`, `device` or `dev`.
    public var provider: String
    /// The provider's stable id for the person: Apple's `sub`, or the dev sign-in name. Nil for
    /// anonymous devices, whose id is kept out of the log (the user id is derived from it).
    public var subject: String?
    public var displayName: String?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case provider, subject
        case displayName = "display_name"
    }

    public init(userId: UUID, provider: String, subject: String?, displayName: String?) {
        self.userId = userId
        self.provider = provider
        self.subject = subject
        self.displayName = displayName
    }
}

/// `user.registered` v2: v1 plus the account's `role`, chosen at sign-up and never changed by the
/// user: `member` (of households) or `coach` (a professional families work with).
public struct UserRegisteredV2: EventPayload {
    public static let eventType = UserRegistered.eventType
    public static let version = 2
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(
        personal: ["subject": .user("user_id"), "display_name": .user("user_id")],
        notPersonal: ["user_id", "provider", "role"])

    public static let roles = ["member", "coach"]

    public var userId: UUID
    /// `apple`, `device` or `dev`.
    public var provider: String
    public var subject: String?
    public var displayName: String?
    public var role: String

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case provider, subject
        case displayName = "display_name"
        case role
    }

    public init(userId: UUID, provider: String, subject: String?, displayName: String?, role: String) {
        self.userId = userId
        self.provider = provider
        self.subject = subject
        self.displayName = displayName
        self.role = role
    }

    /// v1 → v2: everyone who signed up before coaches existed is a member.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["role"] == nil { fields["role"] = .string("member") }
        return .object(fields)
    }
}

/// `user.profile_updated` v1: the fields that are present replace the stored ones; absent fields
/// stay as they were.
public struct UserProfileUpdated: EventPayload {
    public static let eventType = "user.profile_updated"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(
        personal: ["display_name": .user("user_id"), "locale": .user("user_id"), "time_zone": .user("user_id")],
        notPersonal: ["user_id"])

    public var userId: UUID
    public var displayName: String?
    /// BCP 47 language tag.
    public var locale: String?
    /// IANA time zone name.
    public var timeZone: String?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case displayName = "display_name"
        case locale
        case timeZone = "time_zone"
    }

    public init(userId: UUID, displayName: String?, locale: String?, timeZone: String?) {
        self.userId = userId
        self.displayName = displayName
        self.locale = locale
        self.timeZone = timeZone
    }
}

/// `user.household_joined` v1 (superseded by v2): the user now belongs to this household and no
/// longer to any other (a user then belonged to one). On the users topic, keyed by the user, so one user's joins stay
/// in order even when they move between households on different partitions.
public struct UserJoinedHousehold: EventPayload {
    public static let eventType = "user.household_joined"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(
        personal: ["invite_code": .household("household_id")],
        notPersonal: ["user_id", "household_id", "via"])

    public var userId: UUID
    public var householdId: UUID
    /// `created` (their first upsert made the household) or `invite`.
    public var via: String
    public var inviteCode: String?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case householdId = "household_id"
        case via
        case inviteCode = "invite_code"
    }

    public init(userId: UUID, householdId: UUID, via: String, inviteCode: String?) {
        self.userId = userId
        self.householdId = householdId
        self.via = via
        self.inviteCode = inviteCode
    }
}

/// The roles a user holds in a household: `owner` (made it, or was made one; only owners manage
/// members and coaches), `adult` and `caregiver` (a nanny, a grandparent: sees and logs what the
/// family shares, manages nobody).
public enum HouseholdRole: String, Codable, Sendable, CaseIterable {
    case owner, adult, caregiver
}

/// `user.household_joined` v2: the user is now also a member of this household, in `role`. A user
/// may belong to several households (a nanny of two families, separated parents); `leaves_others`
/// is true only for v1 events, which meant a move (a user then belonged to one household), so a
/// replay of old history rebuilds exactly the memberships it made.
public struct UserJoinedHouseholdV2: EventPayload {
    public static let eventType = UserJoinedHousehold.eventType
    public static let version = 2
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(
        personal: ["invite_code": .household("household_id")],
        notPersonal: ["user_id", "household_id", "via", "role", "leaves_others"])

    public var userId: UUID
    public var householdId: UUID
    /// `created` (their first upsert made the household) or `invite`.
    public var via: String
    public var inviteCode: String?
    public var role: HouseholdRole
    public var leavesOthers: Bool

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case householdId = "household_id"
        case via
        case inviteCode = "invite_code"
        case role
        case leavesOthers = "leaves_others"
    }

    public init(userId: UUID, householdId: UUID, via: String, inviteCode: String?, role: HouseholdRole) {
        self.userId = userId
        self.householdId = householdId
        self.via = via
        self.inviteCode = inviteCode
        self.role = role
        self.leavesOthers = false
    }

    /// v1 → v2: a v1 join was a move, by the household's maker (owner) or an invitee (adult).
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        let madeIt = fields["via"] == .string("created")
        fields["role"] = .string(madeIt ? HouseholdRole.owner.rawValue : HouseholdRole.adult.rawValue)
        fields["leaves_others"] = .bool(true)
        return .object(fields)
    }
}

/// `user.household_left` v1: the user is no longer a member of the household, because they left
/// (`removed_by` null) or an owner removed them. Every access that followed the membership ends
/// with it: chats, streams, search, the assistant's context, calendar feeds, reminders.
public struct UserLeftHousehold: EventPayload {
    public static let eventType = "user.household_left"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id", "household_id", "removed_by"])

    public var userId: UUID
    public var householdId: UUID
    public var removedBy: UUID?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case householdId = "household_id"
        case removedBy = "removed_by"
    }

    public init(userId: UUID, householdId: UUID, removedBy: UUID?) {
        self.userId = userId
        self.householdId = householdId
        self.removedBy = removedBy
    }
}

/// `user.household_role_changed` v1: an owner gave a member another role in the household (made
/// them an owner, so that the last owner may leave, or a caregiver).
public struct UserHouseholdRoleChanged: EventPayload {
    public static let eventType = "user.household_role_changed"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id", "household_id", "role", "changed_by"])

    public var userId: UUID
    public var householdId: UUID
    public var role: HouseholdRole
    public var changedBy: UUID

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case householdId = "household_id"
        case role
        case changedBy = "changed_by"
    }

    public init(userId: UUID, householdId: UUID, role: HouseholdRole, changedBy: UUID) {
        self.userId = userId
        self.householdId = householdId
        self.role = role
        self.changedBy = changedBy
    }
}

/// `user.deletion_requested` v1: the user asked for their account to be deleted. Their sessions,
/// devices, webhooks, calendar feeds and Google link are revoked at once; their data is erased
/// at `erase_after` unless they restore the account before (`user.deletion_cancelled`).
public struct UserDeletionRequested: EventPayload {
    public static let eventType = "user.deletion_requested"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id", "requested_at", "erase_after"])

    public var userId: UUID
    public var requestedAt: Date
    public var eraseAfter: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case requestedAt = "requested_at"
        case eraseAfter = "erase_after"
    }

    public init(userId: UUID, requestedAt: Date, eraseAfter: Date) {
        self.userId = userId
        self.requestedAt = Timestamp.rounded(requestedAt)
        self.eraseAfter = Timestamp.rounded(eraseAfter)
    }
}

/// `user.deletion_cancelled` v1: the user restored their account within the grace period.
/// What was revoked stays revoked (devices and links are registered again by the apps).
public struct UserDeletionCancelled: EventPayload {
    public static let eventType = "user.deletion_cancelled"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id"])

    public var userId: UUID

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
    }

    public init(userId: UUID) {
        self.userId = userId
    }
}

/// `user.deletion_code_issued` v1: the user asked for a code to confirm their account's deletion
/// (`POST /v1/me/deletion-code`); the notifier pushes it to their devices. The event names the
/// code, never its digits: both ends derive them from the id (`AccountDeletionCode`).
public struct UserDeletionCodeIssued: EventPayload {
    public static let eventType = "user.deletion_code_issued"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id", "code_id", "expires_at"])

    public var userId: UUID
    public var codeId: UUID
    /// After this the code is refused, and a push not yet sent is not sent.
    public var expiresAt: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case codeId = "code_id"
        case expiresAt = "expires_at"
    }

    public init(userId: UUID, codeId: UUID, expiresAt: Date) {
        self.userId = userId
        self.codeId = codeId
        self.expiresAt = expiresAt
    }
}

/// `user.erased` v1: the user's data key (and those of their runs, and of the households they
/// were the only adult of) has been destroyed. Every read model forgets them: their rows are
/// removed, the messages they sent in shared chats stay as a "deleted user"'s, and the households
/// in `household_ids` are removed with everything in them.
public struct UserErased: EventPayload {
    public static let eventType = "user.erased"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id", "household_ids", "run_ids"])

    public var userId: UUID
    /// Households erased with the user: the ones they were the only adult member of.
    public var householdIds: [UUID]
    /// Their assistant runs, whose keys were destroyed with theirs.
    public var runIds: [UUID]

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case householdIds = "household_ids"
        case runIds = "run_ids"
    }

    public init(userId: UUID, householdIds: [UUID], runIds: [UUID]) {
        self.userId = userId
        self.householdIds = householdIds
        self.runIds = runIds
    }
}

/// `user.export_requested` v1: the user asked for a copy of their data (`scope` `user`), or a
/// household's owner for the household's shared data (`scope` `household`). The gateway's export
/// worker builds the archive.
public struct UserExportRequested: EventPayload {
    public static let eventType = "user.export_requested"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy.nothingPersonal(["export_id", "user_id", "scope", "household_id"])

    public var exportId: UUID
    public var userId: UUID
    /// `user` or `household`.
    public var scope: String
    /// The household exported, for scope `household`.
    public var householdId: UUID?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case exportId = "export_id"
        case userId = "user_id"
        case scope
        case householdId = "household_id"
    }

    public init(exportId: UUID, userId: UUID, scope: String, householdId: UUID?) {
        self.exportId = exportId
        self.userId = userId
        self.scope = scope
        self.householdId = householdId
    }
}

/// `user.consents_updated` v1: what the user agreed to, as a whole (`PUT /v1/me/consents`).
/// `cloud_ai`: their words may go to a cloud model provider (activity ideas); without it, Hearth
/// answers from its own content or refuses. A yes/no about the user is no secret of theirs (the
/// same flag is in every request's authorization), so nothing is sealed.
public struct UserConsentsUpdated: EventPayload {
    public static let eventType = "user.consents_updated"
    public static let version = 1
    public static let topic = Topic.users
    public static let privacy = PayloadPrivacy(personal: [:], notPersonal: ["user_id", "cloud_ai"])

    public var userId: UUID
    public var cloudAI: Bool

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case cloudAI = "cloud_ai"
    }

    public init(userId: UUID, cloudAI: Bool) {
        self.userId = userId
        self.cloudAI = cloudAI
    }
}
