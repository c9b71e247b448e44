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
