import Foundation

/// `admin.dead_letter_redriven` v1: an administrator sent one parked event back to its topic (the
/// console's *redrive* button or `POST /v1/admin/pipeline/redrive`). Keyed by the administrator.
/// Carries positions and ids only: never the parked event's content or its error text, which can
/// quote personal data.
public struct AdminDeadLetterRedriven: EventPayload {
    public static let eventType = "admin.dead_letter_redriven"
    public static let version = 1
    public static let topic = Topic.adminAudit
    public static let privacy = PayloadPrivacy(
        personal: [:],
        notPersonal: [
            "admin_id", "projection", "topic", "partition", "offset", "event_id", "event_type", "redriven_partition", "redriven_offset",
        ])

    public var adminId: UUID
    /// The projection that parked it, and where the event stood.
    public var projection: String
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var eventId: UUID?
    public var eventType: String?
    /// Where the copy landed on `topic`.
    public var redrivenPartition: Int32
    public var redrivenOffset: Int64

    public var aggregateKey: String { adminId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case adminId = "admin_id"
        case projection, topic, partition, offset
        case eventId = "event_id"
        case eventType = "event_type"
        case redrivenPartition = "redriven_partition"
        case redrivenOffset = "redriven_offset"
    }

    public init(
        adminId: UUID, projection: String, topic: String, partition: Int32, offset: Int64, eventId: UUID?, eventType: String?,
        redrivenPartition: Int32, redrivenOffset: Int64
    ) {
        self.adminId = adminId
        self.projection = projection
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.eventId = eventId
        self.eventType = eventType
        self.redrivenPartition = redrivenPartition
        self.redrivenOffset = redrivenOffset
    }
}

/// `admin.user_quota_set` v1: an administrator gave a user their own monthly quota of assist
/// runs, or (`monthly_quota` null) put them back on the default. Keyed by the administrator, like
/// every admin action; the topic's one partition keeps all of them in one order.
public struct AdminUserQuotaSet: EventPayload {
    public static let eventType = "admin.user_quota_set"
    public static let version = 1
    public static let topic = Topic.adminAudit
    public static let privacy = PayloadPrivacy(personal: [:], notPersonal: ["admin_id", "user_id", "monthly_quota"])

    public var adminId: UUID
    public var userId: UUID
    /// Runs a calendar month (UTC); nil: the default again.
    public var monthlyQuota: Int?

    public var aggregateKey: String { adminId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case adminId = "admin_id"
        case userId = "user_id"
        case monthlyQuota = "monthly_quota"
    }

    public init(adminId: UUID, userId: UUID, monthlyQuota: Int?) {
        self.adminId = adminId
        self.userId = userId
        self.monthlyQuota = monthlyQuota
    }

    /// `monthly_quota` is always written, null included: null is the decision "back to the default".
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(adminId, forKey: .adminId)
        try container.encode(userId, forKey: .userId)
        try container.encode(monthlyQuota, forKey: .monthlyQuota)
    }
}
