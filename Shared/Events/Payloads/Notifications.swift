import Foundation

// The notifier's events. Everything about a user's delivery targets and preferences is keyed by
// the user, so one user's device, webhook and settings changes stay in order; delivery outcomes
// are keyed by the reminder they deliver.

/// `device.registered` v1: an app installation asked for push notifications. Registering the same
/// token again (a reinstall, a new environment) replaces the earlier registration.
public struct DeviceRegistered: EventPayload {
    public static let eventType = "device.registered"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: ["token": .user("user_id", erased: .string(""))],
        notPersonal: ["user_id", "platform", "environment"])

    public var userId: UUID
    /// `ios` (APNs) today.
    public var platform: String
    /// The APNs device token, lowercase hex.
    public var token: String
    /// `sandbox` or `production`: which APNs host serves this token.
    public var environment: String

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case platform, token, environment
    }

    public init(userId: UUID, platform: String, token: String, environment: String) {
        self.userId = userId
        self.platform = platform
        self.token = token
        self.environment = environment
    }
}

/// `device.removed` v1: a device token must no longer be used — the user signed out of the app,
/// or APNs said the token is unregistered or malformed.
public struct DeviceRemoved: EventPayload {
    public static let eventType = "device.removed"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: ["token": .user("user_id", erased: .string(""))],
        notPersonal: ["user_id", "reason"])

    public var userId: UUID
    public var token: String
    /// `user`, `apns_unregistered` or `apns_bad_device_token`.
    public var reason: String

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case token, reason
    }

    public init(userId: UUID, token: String, reason: String) {
        self.userId = userId
        self.token = token
        self.reason = reason
    }
}

/// `webhook.registered` v1: deliveries for this user are also POSTed to `url`, signed with
/// `secret`. The secret travels in the event because the notifier must sign with it; it is never
/// logged and never returned by the API.
public struct WebhookRegistered: EventPayload {
    public static let eventType = "webhook.registered"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: [
            "url": .user("user_id", erased: .string("")),
            "secret": .user("user_id", erased: .string("")),
        ],
        notPersonal: ["webhook_id", "user_id", "events"])

    public var webhookId: UUID
    public var userId: UUID
    public var url: String
    public var secret: String
    /// Event names the endpoint wants (`reminder` today); empty means all.
    public var events: [String]

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case webhookId = "webhook_id"
        case userId = "user_id"
        case url, secret, events
    }

    public init(webhookId: UUID, userId: UUID, url: String, secret: String, events: [String]) {
        self.webhookId = webhookId
        self.userId = userId
        self.url = url
        self.secret = secret
        self.events = events
    }
}

/// The one change both webhook events made from v1 to v2: the secret a v1 payload carried
/// (`secret`) moves to `legacy_secret`, and there is no `secret_ref`.
public enum WebhookSecretUpcast {
    @Sendable public static func inlineSecretToLegacy(_ payload: JSONValue) throws -> JSONValue {
        guard case .object(var fields) = payload else { return payload }
        fields["legacy_secret"] = fields.removeValue(forKey: "secret") ?? .null
        fields["secret_ref"] = .null
        return .object(fields)
    }
}

/// `webhook.registered` v2: the signing secret stays out of the event. The gateway seals it at
/// rest (`webhook_secrets`, under `HEARTH_SECRETS_KEY`) and the event names the row
/// (`secret_ref`); the notifier opens it when it delivers. A v1 event carried the secret itself:
/// it upcasts with the secret as `legacy_secret`, which the notifier seals when it projects it.
public struct WebhookRegisteredV2: EventPayload {
    public static let eventType = "webhook.registered"
    public static let version = 2
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: [
            "url": .user("user_id", erased: .string("")),
            "legacy_secret": .user("user_id"),
        ],
        notPersonal: ["webhook_id", "user_id", "events", "secret_ref"])

    public var webhookId: UUID
    public var userId: UUID
    public var url: String
    /// Event names the endpoint wants (`reminder` today); empty means all.
    public var events: [String]
    /// The sealed secret's row in `webhook_secrets`; nil only for an upcast v1 event.
    public var secretRef: UUID?
    /// Only in an upcast v1 event: the secret it carried.
    public var legacySecret: String?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case webhookId = "webhook_id"
        case userId = "user_id"
        case url, events
        case secretRef = "secret_ref"
        case legacySecret = "legacy_secret"
    }

    public init(webhookId: UUID, userId: UUID, url: String, events: [String], secretRef: UUID) {
        self.webhookId = webhookId
        self.userId = userId
        self.url = url
        self.events = events
        self.secretRef = secretRef
        self.legacySecret = nil
    }

    /// v1 → v2: the inline secret becomes `legacy_secret`, with no reference.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1, transform: WebhookSecretUpcast.inlineSecretToLegacy)
}

/// `webhook.disabled` v1: the notifier stopped delivering to a webhook after too many consecutive
/// failures. Registering it again turns it back on.
public struct WebhookDisabled: EventPayload {
    public static let eventType = "webhook.disabled"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: ["last_error": .user("user_id", erased: .string(""))],
        notPersonal: ["webhook_id", "user_id", "consecutive_failures"])

    public var webhookId: UUID
    public var userId: UUID
    public var consecutiveFailures: Int
    public var lastError: String

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case webhookId = "webhook_id"
        case userId = "user_id"
        case consecutiveFailures = "consecutive_failures"
        case lastError = "last_error"
    }

    public init(webhookId: UUID, userId: UUID, consecutiveFailures: Int, lastError: String) {
        self.webhookId = webhookId
        self.userId = userId
        self.consecutiveFailures = consecutiveFailures
        self.lastError = lastError
    }
}

/// `notification.settings_updated` v1: present fields replace the stored ones, absent ones stay.
/// Quiet hours are local wall-clock times (`HH:MM`) in the user's zone; a window whose start is
/// after its end runs over midnight. An empty string for either clears quiet hours.
public struct NotificationSettingsUpdated: EventPayload {
    public static let eventType = "notification.settings_updated"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: ["time_zone": .user("user_id")],
        notPersonal: ["user_id", "quiet_hours_start", "quiet_hours_end", "channels"])

    public var userId: UUID
    /// IANA zone; overrides the profile's zone for notifications.
    public var timeZone: String?
    public var quietHoursStart: String?
    public var quietHoursEnd: String?
    /// Channels delivered to when a reminder names none: `apns`, `webhook`, `inbox`.
    public var channels: [String]?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case timeZone = "time_zone"
        case quietHoursStart = "quiet_hours_start"
        case quietHoursEnd = "quiet_hours_end"
        case channels
    }

    public init(userId: UUID, timeZone: String?, quietHoursStart: String?, quietHoursEnd: String?, channels: [String]?) {
        self.userId = userId
        self.timeZone = timeZone
        self.quietHoursStart = quietHoursStart
        self.quietHoursEnd = quietHoursEnd
        self.channels = channels
    }
}

/// `notification.settings_updated` v2: v1 plus `chore_reminder_lead_minutes`, how long before a
/// chore occurrence (`chore.scheduled`) its reminder goes out. Same partial-update rule: present
/// fields replace the stored ones, absent ones stay; a user who never set a lead time is reminded
/// at the occurrence (lead 0).
public struct NotificationSettingsUpdatedV2: EventPayload {
    public static let eventType = "notification.settings_updated"
    public static let version = 2
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: ["time_zone": .user("user_id")],
        notPersonal: ["user_id", "quiet_hours_start", "quiet_hours_end", "channels", "chore_reminder_lead_minutes"])

    public var userId: UUID
    /// IANA zone; overrides the profile's zone for notifications.
    public var timeZone: String?
    public var quietHoursStart: String?
    public var quietHoursEnd: String?
    /// Channels delivered to when a reminder names none: `apns`, `webhook`, `inbox`.
    public var channels: [String]?
    /// Minutes before a chore occurrence its reminder is due, 0 through 1440.
    public var choreReminderLeadMinutes: Int?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case timeZone = "time_zone"
        case quietHoursStart = "quiet_hours_start"
        case quietHoursEnd = "quiet_hours_end"
        case channels
        case choreReminderLeadMinutes = "chore_reminder_lead_minutes"
    }

    public init(
        userId: UUID, timeZone: String?, quietHoursStart: String?, quietHoursEnd: String?, channels: [String]?,
        choreReminderLeadMinutes: Int?
    ) {
        self.userId = userId
        self.timeZone = timeZone
        self.quietHoursStart = quietHoursStart
        self.quietHoursEnd = quietHoursEnd
        self.channels = channels
        self.choreReminderLeadMinutes = choreReminderLeadMinutes
    }

    /// v1 → v2. A v1 event could not name a lead time, so it upcasts with the field absent
    /// (null) rather than 0: under the partial-update rule it then leaves the stored lead alone,
    /// which is 0 for a user with only v1 history, and a v1 event that arrives after a v2 one
    /// (an older gateway still running during a deploy) does not wipe the user's lead time.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["chore_reminder_lead_minutes"] == nil { fields["chore_reminder_lead_minutes"] = .null }
        return .object(fields)
    }
}

/// `notification.sent` v1: one delivery of a reminder on one channel to one target succeeded.
/// `notification_id` is derived from the reminder, its due time, the channel and the target, so a
/// re-published outcome (the notifier crashed before marking it published) lands on the same id.
public struct NotificationSent: EventPayload {
    public static let eventType = "notification.sent"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: [
            "target": .user("user_id"),
            "title": .user("user_id", erased: .string("")),
            "body": .user("user_id"),
        ],
        notPersonal: ["notification_id", "reminder_id", "user_id", "channel", "attempt", "due_at", "lateness_ms"])

    public var notificationId: UUID
    public var reminderId: UUID
    public var userId: UUID
    /// `apns`, `webhook` or `inbox`.
    public var channel: String
    /// Device token or webhook id; nil for the inbox.
    public var target: String?
    /// 1 for the first try.
    public var attempt: Int
    public var dueAt: Date
    /// How long after `due_at` (or after the end of quiet hours it waited for) it went out.
    public var latenessMs: Int64
    public var title: String
    public var body: String?

    public var aggregateKey: String { reminderId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case notificationId = "notification_id"
        case reminderId = "reminder_id"
        case userId = "user_id"
        case channel, target, attempt
        case dueAt = "due_at"
        case latenessMs = "lateness_ms"
        case title, body
    }

    public init(
        notificationId: UUID, reminderId: UUID, userId: UUID, channel: String, target: String?, attempt: Int, dueAt: Date,
        latenessMs: Int64, title: String, body: String?
    ) {
        self.notificationId = notificationId
        self.reminderId = reminderId
        self.userId = userId
        self.channel = channel
        self.target = target
        self.attempt = attempt
        self.dueAt = dueAt
        self.latenessMs = latenessMs
        self.title = title
        self.body = body
    }
}

/// `notification.failed` v1: one attempt failed. `will_retry` says whether another attempt follows.
public struct NotificationFailed: EventPayload {
    public static let eventType = "notification.failed"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: [
            "target": .user("user_id"),
            "error": .user("user_id", erased: .string("")),
        ],
        notPersonal: ["notification_id", "reminder_id", "user_id", "channel", "attempt", "due_at", "lateness_ms", "will_retry"])

    public var notificationId: UUID
    public var reminderId: UUID
    public var userId: UUID
    public var channel: String
    public var target: String?
    public var attempt: Int
    public var dueAt: Date
    public var latenessMs: Int64
    public var error: String
    public var willRetry: Bool

    public var aggregateKey: String { reminderId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case notificationId = "notification_id"
        case reminderId = "reminder_id"
        case userId = "user_id"
        case channel, target, attempt
        case dueAt = "due_at"
        case latenessMs = "lateness_ms"
        case error
        case willRetry = "will_retry"
    }

    public init(
        notificationId: UUID, reminderId: UUID, userId: UUID, channel: String, target: String?, attempt: Int, dueAt: Date,
        latenessMs: Int64, error: String, willRetry: Bool
    ) {
        self.notificationId = notificationId
        self.reminderId = reminderId
        self.userId = userId
        self.channel = channel
        self.target = target
        self.attempt = attempt
        self.dueAt = dueAt
        self.latenessMs = latenessMs
        self.error = error
        self.willRetry = willRetry
    }
}

/// `notification.read` v1: the user opened an inbox notification.
public struct NotificationRead: EventPayload {
    public static let eventType = "notification.read"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id", "notification_id"])

    public var userId: UUID
    public var notificationId: UUID

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case notificationId = "notification_id"
    }

    public init(userId: UUID, notificationId: UUID) {
        self.userId = userId
        self.notificationId = notificationId
    }
}

/// `webhook.removed` v1: the user removed one of their webhooks; nothing more is sent to it.
public struct WebhookRemoved: EventPayload {
    public static let eventType = "webhook.removed"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy.nothingPersonal(["webhook_id", "user_id"])

    public var webhookId: UUID
    public var userId: UUID

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case webhookId = "webhook_id"
        case userId = "user_id"
    }

    public init(webhookId: UUID, userId: UUID) {
        self.webhookId = webhookId
        self.userId = userId
    }
}

/// `webhook.secret_rotated` v1: deliveries to the webhook are signed with `secret` from now on.
public struct WebhookSecretRotated: EventPayload {
    public static let eventType = "webhook.secret_rotated"
    public static let version = 1
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: ["secret": .user("user_id", erased: .string(""))],
        notPersonal: ["webhook_id", "user_id"])

    public var webhookId: UUID
    public var userId: UUID
    public var secret: String

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case webhookId = "webhook_id"
        case userId = "user_id"
        case secret
    }

    public init(webhookId: UUID, userId: UUID, secret: String) {
        self.webhookId = webhookId
        self.userId = userId
        self.secret = secret
    }
}

/// `webhook.secret_rotated` v2: deliveries are signed with the secret sealed in `webhook_secrets`
/// under `secret_ref` from now on (the secret itself is in no event). An upcast v1 event carries
/// its secret as `legacy_secret`.
public struct WebhookSecretRotatedV2: EventPayload {
    public static let eventType = "webhook.secret_rotated"
    public static let version = 2
    public static let topic = Topic.notifications
    public static let privacy = PayloadPrivacy(
        personal: ["legacy_secret": .user("user_id")],
        notPersonal: ["webhook_id", "user_id", "secret_ref"])

    public var webhookId: UUID
    public var userId: UUID
    public var secretRef: UUID?
    public var legacySecret: String?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case webhookId = "webhook_id"
        case userId = "user_id"
        case secretRef = "secret_ref"
        case legacySecret = "legacy_secret"
    }

    public init(webhookId: UUID, userId: UUID, secretRef: UUID) {
        self.webhookId = webhookId
        self.userId = userId
        self.secretRef = secretRef
        self.legacySecret = nil
    }

    /// v1 → v2: the inline secret becomes `legacy_secret`, with no reference.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1, transform: WebhookSecretUpcast.inlineSecretToLegacy)
}
