import Foundation
import HearthEvents
import Testing

/// `notification.settings_updated` went from v1 to v2 (the chore reminder lead time). Stored v1
/// events must still read, as v2, through the catalogue.
@Suite struct NotificationSettingsUpcastTests {
    let userId = UUID(uuidString: "5F0E8C1A-3B2D-4E6F-9A1B-2C3D4E5F6A7B")!

    /// A v1 event exactly as an older gateway wrote it.
    var storedV1: Data {
        Data("""
            {"id":"0B8E7A52-9C41-4F0B-8D5E-1A2B3C4D5E6F","type":"notification.settings_updated","version":1,\
            "key":"5f0e8c1a-3b2d-4e6f-9a1b-2c3d4e5f6a7b","occurred_at":"2026-11-20T08:00:00.000Z","correlation_id":"c-1",\
            "source":"gateway","data":{"user_id":"5F0E8C1A-3B2D-4E6F-9A1B-2C3D4E5F6A7B","time_zone":"Europe/Berlin",\
            "quiet_hours_start":"22:00","quiet_hours_end":"07:00","channels":["inbox"]}}
            """.utf8)
    }

    @Test func theCatalogueReadsNotificationSettingsAtVersionTwo() {
        #expect(EventCatalogue.hearth.currentVersion(of: "notification.settings_updated") == 2)
        #expect(EventCatalogue.hearth.topic(of: "notification.settings_updated") == .notifications)
    }

    @Test func aStoredVersionOneEventUpcastsWithNoLeadTime() throws {
        for hint in [nil, (type: "notification.settings_updated", version: 1)] as [(type: String, version: Int)?] {
            guard case .event(let event) = try EventCatalogue.hearth.decode(storedV1, hint: hint) else {
                Issue.record("expected an event")
                return
            }
            #expect(event.metadata.version == 2)
            let settings = try #require(event.payload as? NotificationSettingsUpdatedV2)
            #expect(settings == NotificationSettingsUpdatedV2(
                userId: userId, timeZone: "Europe/Berlin", quietHoursStart: "22:00", quietHoursEnd: "07:00", channels: ["inbox"],
                choreReminderLeadMinutes: nil))
        }
    }

    @Test func theUpcasterAddsTheLeadTimeAsAbsentAndKeepsEverythingElse() throws {
        let v1: JSONValue = .object(["user_id": .string(userId.uuidString), "channels": .array([.string("apns")])])
        let v2 = try NotificationSettingsUpdatedV2.upcasterFromV1.transform(v1)
        #expect(v2 == .object([
            "user_id": .string(userId.uuidString), "channels": .array([.string("apns")]), "chore_reminder_lead_minutes": .null,
        ]))
        #expect(NotificationSettingsUpdatedV2.upcasterFromV1.eventType == NotificationSettingsUpdatedV2.eventType)
        #expect(NotificationSettingsUpdatedV2.upcasterFromV1.fromVersion == 1)
    }

    @Test func versionTwoRoundTripsItsLeadTime() throws {
        let event = NotificationSettingsUpdatedV2(
            userId: userId, timeZone: nil, quietHoursStart: nil, quietHoursEnd: nil, channels: nil, choreReminderLeadMinutes: 45)
        let data = try EventCatalogue.hearth.encode(Envelope(event, correlationId: "c-2", source: "gateway"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["version"] as? Int == 2)
        #expect((json["data"] as? [String: Any])?["chore_reminder_lead_minutes"] as? Int == 45)
        guard case .event(let decoded) = try EventCatalogue.hearth.decode(data) else {
            Issue.record("expected an event")
            return
        }
        #expect(decoded.payload as? NotificationSettingsUpdatedV2 == event)
    }
}
