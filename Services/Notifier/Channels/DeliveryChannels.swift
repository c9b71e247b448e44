import Foundation
import HearthEvents
import HearthPrivacy
import Logging

/// One place a reminder goes: a device, a webhook, or the user's inbox.
enum DeliveryTarget: Sendable {
    case device(UserDeliveryContext.Device)
    case webhook(UserDeliveryContext.Webhook)
    case inbox

    var channel: String {
        switch self {
        case .device: "apns"
        case .webhook: "webhook"
        case .inbox: "inbox"
        }
    }

    /// `channel|key`, as the idempotency records name a settled target.
    var settledKey: String { "\(channel)|\(key)" }

    /// The idempotency key's target part: the device token, the webhook id, or `inbox`.
    var key: String {
        switch self {
        case .device(let device): device.token
        case .webhook(let webhook): webhook.webhookId.uuidString.lowercased()
        case .inbox: "inbox"
        }
    }
}

/// What delivering to one target came to.
enum ChannelResult: Sendable {
    case delivered
    /// Try again later (not before `retryAfter` when the receiver said so).
    case retryable(String, retryAfter: TimeInterval?)
    /// Give up on this target for this reminder.
    case failed(String)
    /// The device token is dead: give up, and stop using the token.
    case deviceGone(String)
    /// This notifier cannot sign for the webhook (its secret does not open here): tried again
    /// later like a retryable failure, but no fault of the endpoint's, so not counted against it.
    case unsignable(String)
}

/// The channels the notifier can deliver on, and which targets a reminder goes to.
struct DeliveryChannels: Sendable {
    static let all = ["apns", "webhook", "inbox"]

    let apns: APNsClient?
    let apnsTopic: String?
    let webhooks: WebhookClient
    let logger: Logger

    /// The reminder's channels (or all), less those the user turned off, expanded to targets. An
    /// account deletion code the user asked for goes to their devices whatever their settings, but
    /// only to those registered a day before it was asked for (`AccountDeletionCode.trustedDevice`).
    func targets(for reminder: ReminderRecord, user: UserDeliveryContext) -> [DeliveryTarget] {
        let requested = reminder.channels ?? Self.all
        let isDeletionCode = reminder.source == DeletionCodePushPlanner.source
        let enabled = isDeletionCode ? Set(Self.all) : Set(user.channels ?? Self.all)
        var targets: [DeliveryTarget] = []
        for channel in Self.all where requested.contains(channel) && enabled.contains(channel) {
            switch channel {
            case "apns" where apns != nil:
                let devices = isDeletionCode
                    ? user.devices.filter { AccountDeletionCode.trustedDevice(registeredAt: $0.registeredAt, codeAskedAt: reminder.dueAt) }
                    : user.devices
                targets += devices.map(DeliveryTarget.device)
            case "webhook":
                targets += user.webhooks.filter { $0.events.isEmpty || $0.events.contains("reminder") }.map(DeliveryTarget.webhook)
            case "inbox":
                targets.append(.inbox)
            default:
                continue
            }
        }
        return targets
    }

    func deliver(_ target: DeliveryTarget, reminder: ReminderRecord, notificationId: UUID, dueAt: Date, badge: Int, now: Date) async -> ChannelResult {
        switch target {
        case .inbox:
            // The inbox row is the projection of the notification.sent event this produces.
            return .delivered
        case .device(let device):
            guard let apns, let apnsTopic else { return .failed("apns is not configured") }
            var custom = ["reminder_id": reminder.reminderId.uuidString.lowercased(), "notification_id": notificationId.uuidString.lowercased()]
            if let member = reminder.memberId { custom["member_id"] = member.uuidString.lowercased() }
            if let chat = reminder.chatId { custom["chat_id"] = chat.uuidString.lowercased() }
            var payload = APNsPayload(
                title: reminder.title, body: reminder.body, badge: badge > 0 ? badge : nil, sound: "default",
                threadId: reminder.chatId?.uuidString.lowercased() ?? reminder.householdId?.uuidString.lowercased() ?? "reminders", category: Self.category(of: reminder), custom: custom)
            if reminder.silent {
                // The badge alone, nothing shown or heard: the user asked for badge-only pushes.
                payload = APNsPayload.silent(badge: max(badge, 1), custom: custom)
            }
            let body: Data
            do {
                body = try payload.encoded()
            } catch {
                return .failed("\(error)")
            }
            // A badge-only push is still an alert push to APNs (background pushes may carry
            // nothing but content-available, are throttled and never reach a force-quit app); it
            // shows nothing, so it need not wake the device at once: priority 5.
            let push = APNsPush(
                deviceToken: device.token, environment: device.environment, topic: apnsTopic, pushType: "alert",
                priority: reminder.silent ? 5 : 10, expiration: min(now.addingTimeInterval(24 * 3600), reminder.expiresAt ?? .distantFuture),
                collapseId: Self.collapseId(of: reminder), apnsId: notificationId, payload: body)
            switch await apns.send(push) {
            case .delivered: return .delivered
            case .deviceGone(let reason): return .deviceGone(reason)
            case .retry(let status, let reason, let retryAfter):
                return .retryable(status.map { "\($0) \(reason)" } ?? reason, retryAfter: retryAfter)
            case .rejected(let status, let reason): return .failed("\(status) \(reason)")
            }
        case .webhook(let webhook):
            let document = WebhookReminderBody(
                event: "reminder", notificationId: notificationId.uuidString.lowercased(), reminderId: reminder.reminderId.uuidString.lowercased(),
                userId: reminder.userId.uuidString.lowercased(), title: reminder.title, body: reminder.body,
                dueAt: Timestamp.format(dueAt), sentAt: Timestamp.format(now))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard let body = try? encoder.encode(document) else { return .failed("cannot encode the webhook body") }
            guard let secret = webhook.secret else {
                return .unsignable("the webhook's signing secret cannot be opened here")
            }
            switch await webhooks.deliver(url: webhook.url, secret: secret, event: "reminder", deliveryId: notificationId, body: body, now: now) {
            case .delivered: return .delivered
            case .retry(let reason, let retryAfter): return .retryable(reason, retryAfter: retryAfter)
            case .rejected(let status): return .failed("HTTP \(status)")
            case .refused(let reason): return .failed(reason)
            }
        }
    }

    /// What a newer push replaces on the device: the reminder's earlier push; any earlier deletion
    /// code (only the newest works).
    static func collapseId(of reminder: ReminderRecord) -> String {
        reminder.source == DeletionCodePushPlanner.source ? "account-deletion-code" : reminder.reminderId.uuidString.lowercased()
    }

    /// The app's category for a reminder: the allergen check-in offers "All fine" and "Report a
    /// reaction" (answered at `POST /v1/children/{member_id}/check-ins/{reminder_id}`).
    static func category(of reminder: ReminderRecord) -> String? {
        reminder.source == "allergen_check_in" ? "ALLERGEN_CHECK_IN" : nil
    }
}

/// What a webhook endpoint receives for a reminder (ids lowercase, times RFC 3339 UTC with ms).
struct WebhookReminderBody: Encodable {
    var event: String
    var notificationId: String
    var reminderId: String
    var userId: String
    var title: String
    var body: String?
    var dueAt: String
    var sentAt: String

    enum CodingKeys: String, CodingKey {
        case event
        case notificationId = "notification_id"
        case reminderId = "reminder_id"
        case userId = "user_id"
        case title, body
        case dueAt = "due_at"
        case sentAt = "sent_at"
    }
}
