import Foundation
import HearthEvents
import HearthGoogle
import HearthStore
import Synchronization

/// Publishes what a broken Google link means: `google.link_broken` for the record and a
/// `reminder.requested` so the notifier tells the user. The reminder id is derived from the user
/// and the event that found the break, so a redelivery republishes the same reminder.
final class LinkAlerts: Sendable {
    /// The host's publisher exists only once the host is built, which needs this projection
    /// first; it is handed in right after, before anything runs.
    private let slot = Mutex<EventPublisher?>(nil)

    func attach(_ publisher: EventPublisher) {
        slot.withLock { $0 = publisher }
    }

    func linkBroke(_ broken: LinkBroken, cause: EventMetadata) async throws {
        guard let publisher = slot.withLock({ $0 }) else { throw LinkAlertsNotReady() }
        let correlation = cause.correlationId
        _ = try await publisher.publish(GoogleLinkBroken(userId: broken.userId, reason: broken.reason), correlationId: correlation, causationId: cause.id.uuidString.lowercased())
        let reminder = ReminderRequested(
            reminderId: DerivedId.uuid("google-link-broken:\(broken.userId.uuidString.lowercased()):\(cause.id.uuidString.lowercased())"),
            userId: broken.userId, householdId: nil, memberId: nil,
            title: "Google Calendar is no longer connected",
            body: "Hearth can no longer update your Google calendar. Connect it again in Settings to resume syncing.",
            dueAt: Date(), urgent: true, channels: nil, source: "calendar-sync")
        _ = try await publisher.publish(reminder, correlationId: correlation, causationId: cause.id.uuidString.lowercased())
    }
}

struct LinkAlertsNotReady: Error, CustomStringConvertible {
    var description: String { "calendar-sync published before its publisher was attached" }
}
