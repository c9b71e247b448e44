import Foundation
import HearthEvents
import HearthGoogle
import HearthStore

/// Publishes what a broken Google link means: `google.link_broken` for the record and a
/// `reminder.requested` so the notifier tells the user. The reminder id is derived from the user
/// and the event that found the break, so a redelivery republishes the same reminder.
struct LinkAlerts: Sendable {
    private let publisher: EventPublisher

    init(publisher: EventPublisher) {
        self.publisher = publisher
    }

    func linkBroke(_ broken: LinkBroken, cause: EventMetadata) async throws {
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
