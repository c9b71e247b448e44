import Foundation
import HearthDomain
import HearthEvents
import HearthPrivacy
import HearthStore
import Logging
import Metrics
import ServiceLifecycle

/// Delivers due reminders.
///
/// Each round: queue the reminders that came due, claim a batch (a lease in `reminder_dispatch`;
/// other instances skip it), and deliver each claimed reminder to every target it has not yet
/// reached. A delivery is recorded (idempotency row + log row, one transaction) right after the
/// channel answered, and its event is published after that commit; so a crash before the record
/// re-sends only that one delivery once the lease runs out, and a crash after it re-sends nothing.
/// Log rows whose event did not go out are published again by a later round.
struct ReminderDispatcher: Service {
    let store: DispatchStore
    let channels: DeliveryChannels
    let publisher: EventPublisher
    let settings: NotifierSettings
    let metrics: NotifierMetrics
    let logger: Logger

    func run() async throws {
        logger.info("dispatcher started", metadata: [
            "instance": "\(store.instance)", "apns": "\(channels.apns != nil)", "lease_s": "\(settings.lease)",
        ])
        var lastRepublish: ContinuousClock.Instant?
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var claimedAny = false
            do {
                // Outcomes recorded by a process that died before publishing them: at start-up
                // everything unpublished, then every few seconds what is older than half a minute
                // (a live instance's in-flight publish is left alone). Racing one anyway only
                // publishes an outcome twice, under the same notification id.
                if lastRepublish.map({ ContinuousClock.now - $0 >= .seconds(5) }) ?? true {
                    try await republish(olderThan: lastRepublish == nil ? 0 : 30)
                    lastRepublish = ContinuousClock.now
                }
                try await store.enqueueDue(catchUp: settings.catchUp)
                metrics.due.record(try await store.dueCount())
                let claims = try await store.claim(limit: settings.batchSize, lease: settings.lease)
                claimedAny = !claims.isEmpty
                await deliver(claims)
            } catch {
                logger.error("dispatch round failed", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: .seconds(1))
            }
            if !claimedAny { try? await Task.sleep(for: settings.pollInterval) }
        }
        logger.info("dispatcher stopped")
    }

    /// Delivers claimed reminders, at most `concurrency` at once.
    private func deliver(_ claims: [ClaimedReminder]) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for claim in claims {
                if running >= settings.concurrency {
                    await group.next()
                    running -= 1
                }
                group.addTask { await process(claim) }
                running += 1
            }
        }
    }

    private func process(_ claim: ClaimedReminder) async {
        let key = claim.reminderId.uuidString.lowercased()
        do {
            guard var reminder = try await store.reminder(claim.reminderId), reminder.status == "pending" else {
                try await store.finishClaim(claim, state: "cancelled")
                return
            }
            guard reminder.dueAt == claim.dueAt else {
                try await store.requeue(claim)
                return
            }
            if reminder.source == ChatPushPlanner.source, let chat = reminder.chatId,
               try await !store.chatPushWanted(user: reminder.userId, chat: chat, household: reminder.householdId) {
                // Watching the chat already, or no longer in its household: no push.
                try await store.finishClaim(claim, state: "cancelled")
                return
            }
            if TrackingReminderPlanner.sources.contains(reminder.source), let household = reminder.householdId,
               try await !store.belongs(user: reminder.userId, to: household) {
                // A caregiver who left: the household's feeds and doses are no longer theirs to hear of.
                try await store.finishClaim(claim, state: "cancelled")
                return
            }
            if let expiresAt = reminder.expiresAt, expiresAt <= Date() {
                logger.info("reminder expired before it could be sent", metadata: ["reminder_id": "\(key)", "source": "\(reminder.source)"])
                try await store.finishClaim(claim, state: "cancelled")
                return
            }
            if reminder.source == DeletionCodePushPlanner.source {
                // The digits exist only here, on their way to the device.
                guard let secrets = settings.secrets else {
                    logger.error("an account deletion code cannot be derived without HEARTH_SECRETS_KEY", metadata: ["reminder_id": "\(key)"])
                    try await store.finishClaim(claim, state: "cancelled")
                    return
                }
                let code = AccountDeletionCode(secrets: secrets).code(codeId: reminder.reminderId, user: reminder.userId)
                reminder.body = AccountDeletionCode.message(code: code)
            }
            let user = try await store.userContext(reminder.userId)
            let now = Date()
            let latenessMs: Int64
            // The wellbeing space's pushes wait for the user's delivery window, not quiet hours.
            let timing: DeliveryTiming.Decision
            if reminder.source == WellbeingPushPlanner.source {
                let (window, badgeOnly) = try await store.wellbeingWindow(reminder.userId, fallbackZone: user.zone)
                // Decided when it goes out, from the settings as they are then (not when planned,
                // which a rebuild would see in another order).
                reminder.silent = badgeOnly
                let opening = window.nextOpening(atOrAfter: now)
                timing = opening > now ? .deferUntil(opening) : .sendNow(latenessMs: Int64(max(0, now.timeIntervalSince(claim.remindAt)) * 1000))
            } else {
                timing = DeliveryTiming.decide(
                    dueAt: claim.remindAt, now: now, urgent: reminder.urgent, quietHours: user.quietHours, zone: user.zone,
                    deferredUntil: claim.deferredUntil)
            }
            switch timing {
            case .deferUntil(let end):
                logger.info("reminder deferred by quiet hours", metadata: ["reminder_id": "\(key)", "until": "\(Timestamp.format(end))"])
                try await store.deferClaim(claim, until: end)
                return
            case .sendNow(let lateness):
                latenessMs = lateness
            }

            let settled = try await store.settledTargets(reminder.reminderId, dueAt: claim.dueAt)
            var retryAfter: TimeInterval?
            let pending = channels.targets(for: reminder, user: user).filter { !settled.contains($0.settledKey) }
            // The badge counts this notification too when it is about to land in the inbox; a
            // new-message push shows the unread messages with it.
            var badge = user.unreadInbox + (pending.contains { $0.channel == "inbox" } ? 1 : 0)
            if reminder.source == ChatPushPlanner.source { badge += try await store.unreadChatMessages(reminder.userId) }
            for target in pending {
                guard try await store.renewLease(claim, lease: settings.lease) else {
                    logger.warning("lease lost mid-delivery, leaving the rest to the new holder", metadata: ["reminder_id": "\(key)"])
                    return
                }
                if let wait = try await attempt(target, reminder: reminder, claim: claim, latenessMs: latenessMs, badge: badge) {
                    retryAfter = max(retryAfter ?? 0, wait)
                }
            }
            if let retryAfter {
                try await store.retryClaim(claim, at: Date().addingTimeInterval(retryAfter))
            } else {
                try await store.finishClaim(claim, state: "done")
            }
        } catch {
            // The lease runs out and the claim is taken up again; what was recorded is not redone.
            logger.error("reminder delivery failed", metadata: ["reminder_id": "\(key)", "error": "\(String(reflecting: error))"])
        }
    }

    /// One attempt at one target. Answers the back-off when it should be tried again.
    private func attempt(
        _ target: DeliveryTarget, reminder: ReminderRecord, claim: ClaimedReminder, latenessMs: Int64, badge: Int
    ) async throws -> TimeInterval? {
        let notificationId = NotificationIdentity.notificationId(
            reminderId: reminder.reminderId, dueAt: claim.dueAt, channel: target.channel, target: target.key)
        let result = await channels.deliver(
            target, reminder: reminder, notificationId: notificationId, dueAt: claim.remindAt, badge: badge, now: Date())
        // A chat push's title and body are its author's name and words: the log and the outcome
        // event keep neither.
        var logged = reminder
        if reminder.source == ChatPushPlanner.source {
            logged.title = ChatPushPlanner.loggedTitle
            logged.body = nil
        } else if reminder.source == DeletionCodePushPlanner.source {
            logged.title = DeletionCodePushPlanner.loggedTitle
            logged.body = nil
        }
        var record = DeliveryAttempt(
            notificationId: notificationId, reminder: logged, dueAt: claim.dueAt, remindAt: claim.remindAt, channel: target.channel,
            target: target.key,
            attempt: claim.attempt, outcome: .sent, latenessMs: latenessMs, error: nil, willRetry: false)
        var backoff: TimeInterval?
        switch result {
        case .delivered:
            break
        case .retryable(let reason, let retryAfter):
            record.outcome = .failed
            record.error = reason
            if settings.backoff.mayRetry(afterAttempt: claim.attempt) {
                record.willRetry = true
                backoff = settings.backoff.delay(afterAttempt: claim.attempt, retryAfter: retryAfter)
            }
        case .unsignable(let reason):
            record.outcome = .failed
            record.error = reason
            if settings.backoff.mayRetry(afterAttempt: claim.attempt) {
                record.willRetry = true
                backoff = settings.backoff.delay(afterAttempt: claim.attempt, retryAfter: nil)
            }
        case .failed(let reason):
            record.outcome = .failed
            record.error = reason
        case .deviceGone(let reason):
            record.outcome = .failed
            record.error = reason
        }
        let logId = try await store.record(record)
        if record.outcome == .sent {
            metrics.sent(channel: target.channel, latenessMs: latenessMs)
        } else {
            metrics.failed(channel: target.channel)
        }
        try await publish(record)
        try await store.markPublished([logId])

        switch (target, result) {
        case (.device(let device), .deviceGone(let reason)):
            logger.info("APNs token deactivated", metadata: ["reason": "\(reason)", "reminder_id": "\(reminder.reminderId)"])
            let event = DeviceRemoved(
                userId: reminder.userId, token: device.token, reason: reason == "Unregistered" ? "apns_unregistered" : "apns_bad_device_token")
            _ = try await publisher.publish(event, correlationId: correlationId(reminder.reminderId))
        case (.webhook(let webhook), .delivered):
            try await store.webhookSucceeded(webhook.webhookId)
        case (.webhook(let webhook), .unsignable(let reason)):
            // Not the endpoint's failure: its health is left as it is.
            logger.error("a webhook delivery cannot be signed", metadata: ["webhook_id": "\(webhook.webhookId)", "reason": "\(reason)"])
        case (.webhook(let webhook), _):
            let (failures, disabledNow) = try await store.webhookFailed(
                webhook.webhookId, error: record.error ?? "failed", limit: settings.webhookMaxFailures)
            if disabledNow {
                logger.warning("webhook disabled after consecutive failures", metadata: [
                    "webhook_id": "\(webhook.webhookId)", "failures": "\(failures)",
                ])
                _ = try await publisher.publish(
                    WebhookDisabled(webhookId: webhook.webhookId, userId: reminder.userId, consecutiveFailures: failures, lastError: record.error ?? "failed"),
                    correlationId: correlationId(reminder.reminderId))
                // A disabled webhook is not retried.
                return nil
            }
        default:
            break
        }
        return backoff
    }

    private func correlationId(_ reminderId: UUID) -> String { "reminder-\(reminderId.uuidString.lowercased())" }

    private func publish(_ record: DeliveryAttempt) async throws {
        let correlation = correlationId(record.reminder.reminderId)
        switch record.outcome {
        case .sent:
            _ = try await publisher.publish(
                NotificationSent(
                    notificationId: record.notificationId, reminderId: record.reminder.reminderId, userId: record.reminder.userId,
                    channel: record.channel, target: record.eventTarget, attempt: record.attempt, dueAt: record.remindAt,
                    latenessMs: record.latenessMs, title: record.reminder.title, body: record.reminder.body),
                correlationId: correlation)
        case .failed:
            _ = try await publisher.publish(
                NotificationFailed(
                    notificationId: record.notificationId, reminderId: record.reminder.reminderId, userId: record.reminder.userId,
                    channel: record.channel, target: record.eventTarget, attempt: record.attempt, dueAt: record.remindAt,
                    latenessMs: record.latenessMs, error: record.error ?? "failed", willRetry: record.willRetry),
                correlationId: correlation)
        }
    }

    private func republish(olderThan age: TimeInterval) async throws {
        while true {
            let pending = try await store.unpublished(olderThan: age, limit: 200)
            guard !pending.isEmpty else { return }
            logger.info("publishing outcomes recorded before a restart", metadata: ["count": "\(pending.count)"])
            for row in pending {
                let correlation = correlationId(row.reminderId)
                if row.outcome == DeliveryAttempt.Outcome.sent.rawValue {
                    _ = try await publisher.publish(
                        NotificationSent(
                            notificationId: row.notificationId, reminderId: row.reminderId, userId: row.userId, channel: row.channel,
                            target: row.target, attempt: row.attempt, dueAt: row.dueAt, latenessMs: row.latenessMs, title: row.title,
                            body: row.body),
                        correlationId: correlation)
                } else {
                    _ = try await publisher.publish(
                        NotificationFailed(
                            notificationId: row.notificationId, reminderId: row.reminderId, userId: row.userId, channel: row.channel,
                            target: row.target, attempt: row.attempt, dueAt: row.dueAt, latenessMs: row.latenessMs,
                            error: row.error ?? "failed", willRetry: row.willRetry),
                        correlationId: correlation)
                }
            }
            try await store.markPublished(pending.map(\.logId))
            if pending.count < 200 { return }
        }
    }
}
