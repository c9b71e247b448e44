import Foundation
import HearthEvents
import HearthPrivacy
import HearthStore
import Logging
import PostgresNIO

/// `notification_devices`, `notification_webhooks` and `notification_settings`: where and when a
/// user's notifications may go. From the notifications topic (device, webhook and settings
/// events) and the users topic (the profile's time zone, account deletion).
///
/// `user.deletion_requested` takes every way of reaching the user away at once; `user.erased`
/// removes what is left (targets registered again before the erasure). The users topic comes
/// last: a rebuild reads archived history topic by topic in this order.
public struct NotificationTargetsProjection: Projection {
    public let name = "notification_targets"
    public let topics: [Topic] = [.notifications, .users]
    public let tables = ["notification_devices", "notification_webhooks", "notification_settings"]
    /// Seals the secret an old (v1) webhook event carried; nil without `HEARTH_SECRETS_KEY`, when
    /// such a webhook is kept without a secret (and not delivered to) until it is rotated.
    let secrets: SecretBox?

    public init(secrets: SecretBox?) {
        self.secrets = secrets
    }

    /// An old event's secret, sealed for `legacy_secret_sealed`.
    func sealLegacy(_ secret: String?, webhook: UUID, logger: Logger) throws -> Data? {
        guard let secret else { return nil }
        guard let secrets else {
            logger.warning("a webhook's secret from an old event cannot be sealed without HEARTH_SECRETS_KEY; rotate it",
                           metadata: ["webhook_id": "\(webhook.uuidString.lowercased())"])
            return nil
        }
        return try secrets.seal(secret, context: SecretBox.webhookSecretContext(webhook: webhook, ref: nil))
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            let occurredAt = event.metadata.occurredAt
            switch event.payload {
            case let device as DeviceRegistered:
                // A token belongs to one installation, and stays with the user who registered it
                // until they remove it or APNs reports it invalid: only then may another take it.
                // Registering it again while active keeps when its registration began.
                try await connection.query(
                    """
                    INSERT INTO notification_devices (token, user_id, platform, environment, active, removed_reason, updated_at, registered_at)
                    VALUES (\(device.token), \(device.userId), \(device.platform), \(device.environment), true, NULL, \(occurredAt), \(occurredAt))
                    ON CONFLICT (token) DO UPDATE SET
                        user_id = EXCLUDED.user_id, platform = EXCLUDED.platform, environment = EXCLUDED.environment,
                        active = true, removed_reason = NULL, updated_at = EXCLUDED.updated_at,
                        registered_at = CASE WHEN notification_devices.active THEN notification_devices.registered_at ELSE EXCLUDED.registered_at END
                    WHERE notification_devices.user_id = EXCLUDED.user_id OR NOT notification_devices.active
                    """, logger: logger)
            case let removed as DeviceRemoved:
                try await connection.query(
                    """
                    UPDATE notification_devices SET active = false, removed_reason = \(removed.reason), updated_at = \(occurredAt)
                    WHERE token = \(removed.token) AND user_id = \(removed.userId)
                    """, logger: logger)
            case let webhook as WebhookRegisteredV2:
                // v1 events arrive upcast, their secret in `legacy_secret`: sealed before it is stored.
                let legacy = try sealLegacy(webhook.legacySecret, webhook: webhook.webhookId, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO notification_webhooks (webhook_id, user_id, url, secret, secret_ref, legacy_secret_sealed, events, active, updated_at)
                    VALUES (\(webhook.webhookId), \(webhook.userId), \(webhook.url), NULL, \(webhook.secretRef), \(legacy), \(webhook.events), true,
                            \(occurredAt))
                    ON CONFLICT (webhook_id) DO UPDATE SET
                        url = EXCLUDED.url, secret = NULL, secret_ref = EXCLUDED.secret_ref, legacy_secret_sealed = EXCLUDED.legacy_secret_sealed,
                        events = EXCLUDED.events, active = true, updated_at = EXCLUDED.updated_at
                    WHERE notification_webhooks.user_id = EXCLUDED.user_id
                    """, logger: logger)
            case let disabled as WebhookDisabled:
                try await connection.query(
                    """
                    UPDATE notification_webhooks SET active = false, updated_at = \(occurredAt)
                    WHERE webhook_id = \(disabled.webhookId) AND user_id = \(disabled.userId)
                    """, logger: logger)
            case let removed as WebhookRemoved:
                try await connection.query(
                    """
                    UPDATE notification_webhooks SET active = false, updated_at = \(occurredAt)
                    WHERE webhook_id = \(removed.webhookId) AND user_id = \(removed.userId)
                    """, logger: logger)
            case let rotated as WebhookSecretRotatedV2:
                let legacy = try sealLegacy(rotated.legacySecret, webhook: rotated.webhookId, logger: logger)
                try await connection.query(
                    """
                    UPDATE notification_webhooks
                    SET secret = NULL, secret_ref = \(rotated.secretRef), legacy_secret_sealed = \(legacy), updated_at = \(occurredAt)
                    WHERE webhook_id = \(rotated.webhookId) AND user_id = \(rotated.userId)
                    """, logger: logger)
            case let settings as NotificationSettingsUpdatedV2:
                // Present fields replace, absent ones stay; an empty quiet-hours time clears both.
                // v1 events arrive upcast, with no lead time.
                let clearsQuiet = settings.quietHoursStart == "" || settings.quietHoursEnd == ""
                let lead = settings.choreReminderLeadMinutes
                try await connection.query(
                    """
                    INSERT INTO notification_settings (user_id, time_zone, quiet_hours_start, quiet_hours_end, channels,
                                                       chore_reminder_lead_minutes, updated_at)
                    VALUES (\(settings.userId), \(settings.timeZone), \(clearsQuiet ? nil : settings.quietHoursStart),
                            \(clearsQuiet ? nil : settings.quietHoursEnd), \(settings.channels), COALESCE(\(lead), 0), \(occurredAt))
                    ON CONFLICT (user_id) DO UPDATE SET
                        chore_reminder_lead_minutes = COALESCE(\(lead), notification_settings.chore_reminder_lead_minutes),
                        time_zone = COALESCE(EXCLUDED.time_zone, notification_settings.time_zone),
                        quiet_hours_start = CASE WHEN \(clearsQuiet) THEN NULL
                            ELSE COALESCE(EXCLUDED.quiet_hours_start, notification_settings.quiet_hours_start) END,
                        quiet_hours_end = CASE WHEN \(clearsQuiet) THEN NULL
                            ELSE COALESCE(EXCLUDED.quiet_hours_end, notification_settings.quiet_hours_end) END,
                        channels = COALESCE(EXCLUDED.channels, notification_settings.channels),
                        updated_at = EXCLUDED.updated_at
                    """, logger: logger)
            case let profile as UserProfileUpdated:
                guard let zone = profile.timeZone else { continue }
                try await connection.query(
                    """
                    INSERT INTO notification_settings (user_id, profile_time_zone, updated_at)
                    VALUES (\(profile.userId), \(zone), \(occurredAt))
                    ON CONFLICT (user_id) DO UPDATE SET
                        profile_time_zone = EXCLUDED.profile_time_zone, updated_at = EXCLUDED.updated_at
                    """, logger: logger)
            case let requested as UserDeletionRequested:
                try await remove(requested.userId, changedBy: occurredAt, on: connection, logger: logger)
            case let erased as UserErased:
                try await remove(erased.userId, changedBy: nil, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    /// Deletes the user's devices, webhooks (with the dispatcher's health rows of them, whose last
    /// error may quote the user's endpoint) and settings. With `changedBy`, only rows last changed
    /// by an event up to then: a rebuild applies the request after the notifications topic, so a
    /// device registered again after a cancelled deletion must outlive it there as it did live.
    private func remove(_ user: UUID, changedBy: Date?, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            DELETE FROM webhook_health WHERE webhook_id IN (
                SELECT webhook_id FROM notification_webhooks
                WHERE user_id = \(user) AND (\(changedBy)::timestamptz IS NULL OR updated_at <= \(changedBy)::timestamptz))
            """, logger: logger)
        try await connection.query(
            """
            DELETE FROM notification_webhooks
            WHERE user_id = \(user) AND (\(changedBy)::timestamptz IS NULL OR updated_at <= \(changedBy)::timestamptz)
            """, logger: logger)
        try await connection.query(
            """
            DELETE FROM notification_devices
            WHERE user_id = \(user) AND (\(changedBy)::timestamptz IS NULL OR updated_at <= \(changedBy)::timestamptz)
            """, logger: logger)
        try await connection.query(
            """
            DELETE FROM notification_settings
            WHERE user_id = \(user) AND (\(changedBy)::timestamptz IS NULL OR updated_at <= \(changedBy)::timestamptz)
            """, logger: logger)
    }
}
