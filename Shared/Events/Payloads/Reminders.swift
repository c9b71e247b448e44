import Foundation

/// `reminder.requested` v1: someone wants a user reminded at a time. Published by the gateway for
/// `POST /v1/reminders`, and by any service that needs to tell a user something later or now
/// (calendar-sync when a Google link breaks, the assistant once an action is confirmed).
/// The notifier owns delivery. Keyed by the reminder id; publishing the same id again with a new
/// `due_at` moves the reminder.
public struct ReminderRequested: EventPayload {
    public static let eventType = "reminder.requested"
    public static let version = 1
    public static let topic = Topic.reminders
    public static let privacy = PayloadPrivacy(
        personal: [
            "title": .user("user_id", erased: .string("")),
            "body": .user("user_id"),
        ],
        notPersonal: ["reminder_id", "user_id", "household_id", "member_id", "due_at", "urgent", "channels", "source"])

    public var reminderId: UUID
    public var userId: UUID
    public var householdId: UUID?
    public var memberId: UUID?
    public var title: String
    public var body: String?
    public var dueAt: Date
    /// Urgent reminders ignore the user's quiet hours.
    public var urgent: Bool
    /// `apns`, `webhook`, `inbox`; nil means the user's enabled channels.
    public var channels: [String]?
    /// Who asked: `api`, `calendar-sync`, `assistant`, ... (for the log, not for routing).
    public var source: String

    public var aggregateKey: String { reminderId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case reminderId = "reminder_id"
        case userId = "user_id"
        case householdId = "household_id"
        case memberId = "member_id"
        case title, body
        case dueAt = "due_at"
        case urgent, channels, source
    }

    public init(
        reminderId: UUID, userId: UUID, householdId: UUID?, memberId: UUID?, title: String, body: String?, dueAt: Date,
        urgent: Bool, channels: [String]?, source: String
    ) {
        self.reminderId = reminderId
        self.userId = userId
        self.householdId = householdId
        self.memberId = memberId
        self.title = title
        self.body = body
        self.dueAt = dueAt
        self.urgent = urgent
        self.channels = channels
        self.source = source
    }
}

/// `reminder.cancelled` v1: a pending reminder must not be sent. Same key as its request, so a
/// cancel never overtakes the request it cancels.
public struct ReminderCancelled: EventPayload {
    public static let eventType = "reminder.cancelled"
    public static let version = 1
    public static let topic = Topic.reminders
    public static let privacy = PayloadPrivacy.nothingPersonal(["reminder_id", "user_id", "cancelled_by"])

    public var reminderId: UUID
    public var userId: UUID
    public var cancelledBy: UUID?

    public var aggregateKey: String { reminderId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case reminderId = "reminder_id"
        case userId = "user_id"
        case cancelledBy = "cancelled_by"
    }

    public init(reminderId: UUID, userId: UUID, cancelledBy: UUID?) {
        self.reminderId = reminderId
        self.userId = userId
        self.cancelledBy = cancelledBy
    }
}
