import Foundation
import HearthPrivacy
import HearthDomain
import Logging
import PostgresNIO

/// A reminder generation this instance holds the lease on.
struct ClaimedReminder: Sendable {
    var reminderId: UUID
    /// The generation: the reminder's due time (a chore reminder's occurrence time).
    var dueAt: Date
    /// When it was due to go out: `dueAt` less the user's chore lead time when it was queued.
    var remindAt: Date
    /// Claims of this generation so far, this one included (deferrals excluded).
    var attempt: Int
    /// The end of the quiet window it already waited for, if any.
    var deferredUntil: Date?
}

/// The reminder as the `reminders` projection holds it.
struct ReminderRecord: Sendable {
    var reminderId: UUID
    var userId: UUID
    var householdId: UUID?
    var title: String
    var body: String?
    var dueAt: Date
    var urgent: Bool
    var channels: [String]?
    var status: String
    var source: String
    /// The household member it is about (a tracked child), when there is one.
    var memberId: UUID? = nil
    /// The chat a new-message push is about.
    var chatId: UUID? = nil
    /// Only the badge, nothing shown: set by the dispatcher for the wellbeing space's pushes from
    /// the user's settings when it sends.
    var silent: Bool = false
    /// After this it is not sent (an account deletion code's expiry).
    var expiresAt: Date? = nil
}

/// Where and when one user's notifications may go.
struct UserDeliveryContext: Sendable {
    struct Device: Sendable {
        var token: String
        var environment: String
        /// When its current registration began.
        var registeredAt: Date
    }
    struct Webhook: Sendable {
        var webhookId: UUID
        var url: String
        /// Nil when it cannot be opened (no `HEARTH_SECRETS_KEY`, or a rotation's row already gone
        /// before this notifier projected the rotation): the delivery waits and retries.
        var secret: String?
        var events: [String]
    }

    var zone: TimeZone
    var quietHours: QuietHours?
    var channels: [String]?
    var devices: [Device]
    var webhooks: [Webhook]
    /// Unread in-app notifications: the app icon's badge.
    var unreadInbox: Int
}

/// One attempt as the log and the event record it.
struct DeliveryAttempt: Sendable {
    enum Outcome: String, Sendable { case sent, failed }

    var notificationId: UUID
    var reminder: ReminderRecord
    /// The generation, the idempotency key with channel and target.
    var dueAt: Date
    /// When it was due to go out, as the log and the event report it.
    var remindAt: Date
    var channel: String
    var target: String
    var attempt: Int
    var outcome: Outcome
    var latenessMs: Int64
    var error: String?
    var willRetry: Bool

    /// The target as events carry it: nil for the inbox, which has only one.
    var eventTarget: String? { channel == "inbox" ? nil : target }
}

/// The dispatcher's SQL: the work queue (`reminder_dispatch`), the idempotency records
/// (`notification_deliveries`), the attempt log with its publish flag (`notification_log`), and
/// webhook health. Reads the notifier's projections, never writes them.
struct DispatchStore: Sendable {
    let client: PostgresClient
    /// This process (host and pid), written on its claims for operators.
    let instance: String
    /// Opens the webhooks' sealed secrets.
    let secrets: SecretBox?
    let logger: Logger

    /// When reminder `r` (joined with its user's `notification_settings` as `s`) is to go out:
    /// a chore occurrence's reminder that many minutes early, every other reminder at its due time.
    ///
    /// The lead time is applied here, when a reminder is queued, rather than in the `reminders`
    /// projection: the projection stays a function of the reminder events alone (replaying it
    /// gives the same rows whatever the settings were at the time), and a lead time changed after
    /// the occurrence was projected applies to every occurrence not yet queued without rewriting
    /// them. The generation stays keyed by the occurrence time, so changing the lead time never
    /// sends an occurrence that already went out again; rescheduling the occurrence still does.
    private static let remindAt = """
        (r.due_at - make_interval(mins => CASE WHEN r.source = 'chore'
            THEN LEAST(greatest(COALESCE(s.chore_reminder_lead_minutes, 0), 0), \(ChoreReminderLead.maximumMinutes)) ELSE 0 END))
        """

    /// Takes up every pending reminder that is due (for a chore occurrence: its time less the
    /// user's lead time) and not yet queued for its current due time; a reminder whose due time
    /// moved (rescheduled, re-requested) gets a fresh generation, unless an instance is mid-send
    /// on the old one (it notices and requeues it).
    ///
    /// Only reminders due within `catchUp` are looked at: the projection keeps delivered
    /// reminders as they were, so without a bound every round would re-check all of history.
    /// A notifier that was down for longer than that does not send what fell out of the window.
    /// The bounds on `r.due_at` itself keep the pending-due index usable: no lead time exceeds
    /// `ChoreReminderLead.maximumMinutes`.
    func enqueueDue(catchUp: TimeInterval) async throws {
        try await client.query(
            """
            INSERT INTO reminder_dispatch (reminder_id, due_at, remind_at, state, next_attempt_at)
            SELECT r.reminder_id, r.due_at, \(unescaped: Self.remindAt), 'pending', \(unescaped: Self.remindAt)
            FROM reminders r
            LEFT JOIN notification_settings s ON s.user_id = r.user_id
            WHERE r.status = 'pending'
              AND r.due_at <= now() + make_interval(mins => \(unescaped: String(ChoreReminderLead.maximumMinutes)))
              AND r.due_at > now() - make_interval(secs => \(catchUp))
              AND \(unescaped: Self.remindAt) <= now() AND \(unescaped: Self.remindAt) > now() - make_interval(secs => \(catchUp))
              AND NOT EXISTS (SELECT 1 FROM reminder_dispatch d WHERE d.reminder_id = r.reminder_id AND d.due_at = r.due_at)
            ON CONFLICT (reminder_id) DO UPDATE SET
                due_at = EXCLUDED.due_at, remind_at = EXCLUDED.remind_at, state = 'pending', next_attempt_at = EXCLUDED.next_attempt_at,
                attempts = 0, deferred_until = NULL, lease_until = NULL, owner = NULL, updated_at = now()
            WHERE reminder_dispatch.state <> 'sending'
            """, logger: logger)
    }

    /// Claims up to `limit` due generations: pending ones whose time has come, and ones whose
    /// holder's lease ran out (it crashed mid-send). `SKIP LOCKED` lets instances claim side by
    /// side; the update inside the same statement makes a claim visible to the others at commit.
    func claim(limit: Int, lease: TimeInterval) async throws -> [ClaimedReminder] {
        let rows = try await client.query(
            """
            WITH due AS (
                SELECT reminder_id FROM reminder_dispatch
                WHERE (state = 'pending' AND next_attempt_at <= now()) OR (state = 'sending' AND lease_until < now())
                ORDER BY next_attempt_at
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            )
            UPDATE reminder_dispatch d
            SET state = 'sending', owner = \(instance), lease_until = now() + make_interval(secs => \(lease)),
                attempts = d.attempts + 1, updated_at = now()
            FROM due WHERE d.reminder_id = due.reminder_id
            RETURNING d.reminder_id, d.due_at, COALESCE(d.remind_at, d.due_at), d.attempts, d.deferred_until
            """, logger: logger)
        var claims: [ClaimedReminder] = []
        for try await (id, dueAt, remindAt, attempts, deferred) in rows.decode((UUID, Date, Date, Int32, Date?).self) {
            claims.append(ClaimedReminder(reminderId: id, dueAt: dueAt, remindAt: remindAt, attempt: Int(attempts), deferredUntil: deferred))
        }
        return claims
    }

    /// Due generations not yet delivered (the `hearth_reminders_due` gauge).
    func dueCount() async throws -> Int {
        let rows = try await client.query(
            """
            SELECT count(*)::bigint FROM reminder_dispatch
            WHERE (state = 'pending' AND next_attempt_at <= now()) OR state = 'sending'
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    func reminder(_ id: UUID) async throws -> ReminderRecord? {
        let rows = try await client.query(
            """
            SELECT reminder_id, user_id, household_id, title, body, due_at, urgent, channels, status, source, member_id, chat_id, expires_at
            FROM reminders WHERE reminder_id = \(id)
            """, logger: logger)
        for try await (reminderId, userId, householdId, title, body, dueAt, urgent, channels, status, source, memberId, chatId, expiresAt)
            in rows.decode((UUID, UUID, UUID?, String, String?, Date, Bool, [String]?, String, String, UUID?, UUID?, Date?).self)
        {
            return ReminderRecord(
                reminderId: reminderId, userId: userId, householdId: householdId, title: title, body: body, dueAt: dueAt,
                urgent: urgent, channels: channels, status: status, source: source, memberId: memberId, chatId: chatId, expiresAt: expiresAt)
        }
        return nil
    }

    /// Whether a new-message push should still go to its recipient: they may read the chat's
    /// household's chats (the gateway's `household_chat_access`: its users and current coaches)
    /// and are not watching the chat on an open stream (`chat_stream_presence`, kept by the
    /// gateways while streams are open).
    func chatPushWanted(user: UUID, chat: UUID, household: UUID?) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT EXISTS (SELECT 1 FROM household_chat_access() WHERE user_id = \(user) AND household_id = \(household))
               AND NOT EXISTS (SELECT 1 FROM chat_stream_presence WHERE user_id = \(user) AND chat_id = \(chat) AND expires_at > now())
            """, logger: logger)
        for try await wanted in rows.decode(Bool.self) { return wanted }
        return false
    }

    /// Whether the user still belongs to the household (the gateway's `household_chat_access`):
    /// a household's tracking reminders go to its people only, whatever settings history left.
    func belongs(user: UUID, to household: UUID) async throws -> Bool {
        let rows = try await client.query(
            "SELECT EXISTS (SELECT 1 FROM household_chat_access() WHERE user_id = \(user) AND household_id = \(household))", logger: logger)
        for try await belongs in rows.decode(Bool.self) { return belongs }
        return false
    }

    /// The user's unread chat messages (not their own) in the chats they may still read: the
    /// badge a new-message push carries.
    func unreadChatMessages(_ user: UUID) async throws -> Int {
        let rows = try await client.query(
            """
            SELECT count(*)::bigint FROM chat_members cm
            JOIN chats c ON c.chat_id = cm.chat_id
            JOIN household_chat_access() a ON a.user_id = cm.user_id AND a.household_id = c.household_id
            JOIN chat_messages m ON m.chat_id = cm.chat_id AND m.seq > COALESCE(cm.read_up_to_seq, -1) AND m.author_id <> cm.user_id
            WHERE cm.user_id = \(user)
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// The user's wellbeing delivery window, when they set one (else the default 08:00–21:00 in
    /// their notification or profile zone applies).
    /// With it, whether they want badge-only pushes (yes by default).
    func wellbeingWindow(_ userId: UUID, fallbackZone: TimeZone) async throws -> (window: DeliveryWindow, badgeOnly: Bool) {
        let rows = try await client.query(
            "SELECT window_start, window_end, time_zone, badge_only FROM wellbeing_windows WHERE user_id = \(userId)", logger: logger)
        for try await (start, end, zone, badgeOnly) in rows.decode((String, String, String, Bool).self) {
            if let window = try? DeliveryWindow.parse(start: start, end: end, timeZone: zone) { return (window, badgeOnly) }
        }
        return (DeliveryWindow.standard(in: fallbackZone), true)
    }

    func userContext(_ userId: UUID) async throws -> UserDeliveryContext {
        var context = UserDeliveryContext(zone: .gmt, quietHours: nil, channels: nil, devices: [], webhooks: [], unreadInbox: 0)
        let settings = try await client.query(
            """
            SELECT time_zone, profile_time_zone, quiet_hours_start, quiet_hours_end, channels
            FROM notification_settings WHERE user_id = \(userId)
            """, logger: logger)
        for try await (zone, profileZone, quietStart, quietEnd, channels) in settings.decode((String?, String?, String?, String?, [String]?).self) {
            context.zone = DeliveryTiming.zone(setting: zone, profile: profileZone)
            context.quietHours = QuietHours(start: quietStart, end: quietEnd)
            context.channels = channels
        }
        let devices = try await client.query(
            "SELECT token, environment, registered_at FROM notification_devices WHERE user_id = \(userId) AND active ORDER BY token", logger: logger)
        for try await (token, environment, registeredAt) in devices.decode((String, String, Date).self) {
            context.devices.append(.init(token: token, environment: environment, registeredAt: registeredAt))
        }
        // A webhook this notifier disabled is skipped before the projection has caught up.
        let webhooks = try await client.query(
            """
            SELECT w.webhook_id, w.url, w.events, w.secret_ref, s.sealed, w.legacy_secret_sealed, w.secret FROM notification_webhooks w
            LEFT JOIN webhook_health h ON h.webhook_id = w.webhook_id
            LEFT JOIN webhook_secrets s ON s.secret_ref = w.secret_ref AND s.webhook_id = w.webhook_id
            WHERE w.user_id = \(userId) AND w.active AND (h.disabled_at IS NULL OR h.disabled_at < w.updated_at)
            ORDER BY w.webhook_id
            """, logger: logger)
        for try await (id, url, events, ref, sealed, legacySealed, plaintext) in webhooks.decode(
            (UUID, String, [String], UUID?, Data?, Data?, String?).self
        ) {
            let secret = openSecret(webhook: id, ref: ref, sealed: sealed, legacySealed: legacySealed, plaintext: plaintext)
            context.webhooks.append(.init(webhookId: id, url: url, secret: secret, events: events))
        }
        let unread = try await client.query(
            "SELECT count(*)::bigint FROM notification_inbox WHERE user_id = \(userId) AND read_at IS NULL", logger: logger)
        for try await count in unread.decode(Int64.self) { context.unreadInbox = Int(count) }
        return context
    }

    /// A webhook's signing secret: the gateway's sealed row its latest event names, else the one
    /// an old event carried (sealed by the projection), else a row from before secrets were sealed
    /// (until `LegacyWebhookSecrets` seals it).
    func openSecret(webhook: UUID, ref: UUID?, sealed: Data?, legacySealed: Data?, plaintext: String?) -> String? {
        do {
            if let ref {
                guard let sealed, let secrets else { return nil }
                return try secrets.open(sealed, context: SecretBox.webhookSecretContext(webhook: webhook, ref: ref))
            }
            if let legacySealed, let secrets {
                return try secrets.open(legacySealed, context: SecretBox.webhookSecretContext(webhook: webhook, ref: nil))
            }
            return plaintext
        } catch {
            logger.error("a webhook's secret does not open (HEARTH_SECRETS_KEY differs from the gateway's?)",
                         metadata: ["webhook_id": "\(webhook.uuidString.lowercased())"])
            return nil
        }
    }

    /// `channel|target` of every target this generation already reached (or gave up on).
    func settledTargets(_ reminderId: UUID, dueAt: Date) async throws -> Set<String> {
        let rows = try await client.query(
            "SELECT channel, target FROM notification_deliveries WHERE reminder_id = \(reminderId) AND due_at = \(dueAt)", logger: logger)
        var settled: Set<String> = []
        for try await (channel, target) in rows.decode((String, String).self) { settled.insert("\(channel)|\(target)") }
        return settled
    }

    /// Records one attempt: the log row, and for a final outcome the idempotency record, in one
    /// transaction. Answers the log row's id, to mark it published once its event is out.
    func record(_ attempt: DeliveryAttempt) async throws -> Int64 {
        try await client.withTransaction(logger: logger) { connection in
            let final = attempt.outcome == .sent || !attempt.willRetry
            if final {
                try await connection.query(
                    """
                    INSERT INTO notification_deliveries (reminder_id, due_at, channel, target, outcome, attempts)
                    VALUES (\(attempt.reminder.reminderId), \(attempt.dueAt), \(attempt.channel), \(attempt.target),
                            \(attempt.outcome.rawValue), \(attempt.attempt))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            let rows = try await connection.query(
                """
                INSERT INTO notification_log (notification_id, reminder_id, user_id, channel, target, attempt, outcome, due_at,
                                              lateness_ms, error, will_retry, title, body)
                VALUES (\(attempt.notificationId), \(attempt.reminder.reminderId), \(attempt.reminder.userId), \(attempt.channel),
                        \(attempt.eventTarget), \(attempt.attempt), \(attempt.outcome.rawValue), \(attempt.remindAt), \(attempt.latenessMs),
                        \(attempt.error), \(attempt.willRetry), \(attempt.reminder.title), \(attempt.reminder.body))
                RETURNING log_id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { return id }
            throw DispatchStoreError.noLogId
        }
    }

    func markPublished(_ logIds: [Int64]) async throws {
        guard !logIds.isEmpty else { return }
        try await client.query("UPDATE notification_log SET published = true WHERE log_id = ANY(\(logIds))", logger: logger)
    }

    /// Log rows whose event may never have gone out (the process died between commit and publish).
    func unpublished(olderThan age: TimeInterval, limit: Int) async throws -> [UnpublishedAttempt] {
        let rows = try await client.query(
            """
            SELECT log_id, notification_id, reminder_id, user_id, channel, target, attempt, outcome, due_at, lateness_ms, error,
                   will_retry, title, body
            FROM notification_log
            WHERE NOT published AND created_at < now() - make_interval(secs => \(age))
            ORDER BY log_id LIMIT \(limit)
            """, logger: logger)
        var found: [UnpublishedAttempt] = []
        for try await row in rows.decode(
            (Int64, UUID, UUID, UUID, String, String?, Int32, String, Date, Int64, String?, Bool, String, String?).self)
        {
            found.append(UnpublishedAttempt(
                logId: row.0, notificationId: row.1, reminderId: row.2, userId: row.3, channel: row.4, target: row.5,
                attempt: Int(row.6), outcome: row.7, dueAt: row.8, latenessMs: row.9, error: row.10, willRetry: row.11,
                title: row.12, body: row.13))
        }
        return found
    }

    /// Extends this instance's lease before it delivers to another target; false when the claim
    /// is no longer ours (the lease ran out and another instance took it over), so we stop.
    func renewLease(_ claim: ClaimedReminder, lease: TimeInterval) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE reminder_dispatch SET lease_until = now() + make_interval(secs => \(lease))
            WHERE reminder_id = \(claim.reminderId) AND due_at = \(claim.dueAt) AND owner = \(instance) AND state = 'sending'
            RETURNING reminder_id
            """, logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// Quiet hours hold the reminder until `until`; the deferral is not an attempt.
    func deferClaim(_ claim: ClaimedReminder, until: Date) async throws {
        try await client.query(
            """
            UPDATE reminder_dispatch SET state = 'pending', next_attempt_at = \(until), deferred_until = \(until),
                attempts = greatest(attempts - 1, 0), lease_until = NULL, owner = NULL, updated_at = now()
            WHERE reminder_id = \(claim.reminderId) AND due_at = \(claim.dueAt) AND owner = \(instance)
            """, logger: logger)
    }

    func retryClaim(_ claim: ClaimedReminder, at: Date) async throws {
        try await client.query(
            """
            UPDATE reminder_dispatch SET state = 'pending', next_attempt_at = \(at), lease_until = NULL, owner = NULL, updated_at = now()
            WHERE reminder_id = \(claim.reminderId) AND due_at = \(claim.dueAt) AND owner = \(instance)
            """, logger: logger)
    }

    /// `done` or `cancelled`.
    func finishClaim(_ claim: ClaimedReminder, state: String) async throws {
        try await client.query(
            """
            UPDATE reminder_dispatch SET state = \(state), lease_until = NULL, updated_at = now()
            WHERE reminder_id = \(claim.reminderId) AND due_at = \(claim.dueAt) AND owner = \(instance)
            """, logger: logger)
    }

    /// The reminder moved while queued: queue its new due time (less the lead time, for a chore).
    func requeue(_ claim: ClaimedReminder) async throws {
        try await client.query(
            """
            UPDATE reminder_dispatch d SET due_at = r.due_at, remind_at = \(unescaped: Self.remindAt),
                state = 'pending', next_attempt_at = \(unescaped: Self.remindAt), attempts = 0,
                deferred_until = NULL, lease_until = NULL, owner = NULL, updated_at = now()
            FROM reminders r LEFT JOIN notification_settings s ON s.user_id = r.user_id
            WHERE r.reminder_id = d.reminder_id AND d.reminder_id = \(claim.reminderId) AND d.owner = \(instance)
            """, logger: logger)
    }

    /// Counts a webhook failure; answers the consecutive count and whether this call disabled it.
    func webhookFailed(_ webhookId: UUID, error: String, limit: Int) async throws -> (failures: Int, disabledNow: Bool) {
        let rows = try await client.query(
            """
            INSERT INTO webhook_health (webhook_id, consecutive_failures, last_error) VALUES (\(webhookId), 1, \(error))
            ON CONFLICT (webhook_id) DO UPDATE SET
                consecutive_failures = webhook_health.consecutive_failures + 1, last_error = EXCLUDED.last_error
            RETURNING consecutive_failures, disabled_at IS NULL
            """, logger: logger)
        var failures = 0
        var enabled = true
        for try await (count, notDisabled) in rows.decode((Int32, Bool).self) {
            failures = Int(count)
            enabled = notDisabled
        }
        guard failures >= limit, enabled else { return (failures, false) }
        let disabled = try await client.query(
            "UPDATE webhook_health SET disabled_at = now() WHERE webhook_id = \(webhookId) AND disabled_at IS NULL RETURNING webhook_id",
            logger: logger)
        for try await _ in disabled.decode(UUID.self) { return (failures, true) }
        return (failures, false)
    }

    func webhookSucceeded(_ webhookId: UUID) async throws {
        try await client.query(
            """
            INSERT INTO webhook_health (webhook_id, consecutive_failures) VALUES (\(webhookId), 0)
            ON CONFLICT (webhook_id) DO UPDATE SET consecutive_failures = 0, disabled_at = NULL
            """, logger: logger)
    }
}

struct UnpublishedAttempt: Sendable {
    var logId: Int64
    var notificationId: UUID
    var reminderId: UUID
    var userId: UUID
    var channel: String
    var target: String?
    var attempt: Int
    var outcome: String
    var dueAt: Date
    var latenessMs: Int64
    var error: String?
    var willRetry: Bool
    var title: String
    var body: String?
}

enum DispatchStoreError: Error { case noLogId }
