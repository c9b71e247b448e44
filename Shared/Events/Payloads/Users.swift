import Foundation

/// `user.registered` v1: someone signed in for the first time. Keyed by the user id, which is
/// derived from (provider, subject), so all events of one Apple `sub` share a key and a partition.
public struct UserRegistered: EventPayload {
    public static let eventType = "user.registered"
    public static let version = 1
    public static let topic = Topic.users

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

/// `user.profile_updated` v1: the fields that are present replace the stored ones; absent fields
/// stay as they were.
public struct UserProfileUpdated: EventPayload {
    public static let eventType = "user.profile_updated"
    public static let version = 1
    public static let topic = Topic.users

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

/// `user.household_joined` v1: the user now belongs to this household (and no longer to any
/// other; a user belongs to one). On the users topic, keyed by the user, so one user's joins stay
/// in order even when they move between households on different partitions.
public struct UserJoinedHousehold: EventPayload {
    public static let eventType = "user.household_joined"
    public static let version = 1
    public static let topic = Topic.users

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
