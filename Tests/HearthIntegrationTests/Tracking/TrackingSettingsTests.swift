import Foundation
import HearthDomain
@testable import NotifierService
import Testing

extension BackboneSuite.Notifier {
    /// The household's check-in settings: off means no check-in (none listed, none planned); on with
    /// a one-hour delay plans it an hour after the taste; a delay outside 1–4 h is a 400. A caregiver
    /// who joins another household gets the old one's next-feed reminders no more.
    @Test func checkInSettingsAndALeavingCaregiverShapeTheReminders() async throws {
        try await NotifierStack.with { stack, _ in
            let family = try await TrackingFamily.make(stack.gateway)
            let settings = stack.gateway.baseURL.appendingPathComponent("v1/tracking/settings")
            func put(_ body: [String: Any]) async throws -> HTTPTestClient.Reply {
                try await HTTPTestClient.send("PUT", settings, body: try JSONSerialization.data(withJSONObject: body), headers: family.user.headers)
            }
            #expect(try await put(["check_in_delay_minutes": 30]).errorField == "check_in_delay_minutes")
            #expect(try await put(["check_in_delay_minutes": 300]).errorField == "check_in_delay_minutes")
            let off = try await put(["allergen_check_ins": false])
            #expect(off.status == 200 && off.json["allergen_check_ins"] as? Bool == false, "\(off.text)")

            let quiet = try await family.send("POST", "foods", ["food": "Scrambled egg"])
            #expect(quiet.status == 201 && quiet.json["check_in"] == nil, "\(quiet.text)")
            let quietLogText = try #require((quiet.json["log"] as? [String: Any])?["log_id"] as? String)
            let quietLog = try #require(UUID(uuidString: quietLogText))

            let on = try await put(["allergen_check_ins": true, "check_in_delay_minutes": 60])
            #expect(on.json["check_in_delay_minutes"] as? Int == 60)
            let tried = Date().addingTimeInterval(-600)
            let watched = try await family.send("POST", "foods", ["food": "Peanut butter", "at": TrackingTime.iso(tried)])
            let checkInText = try #require((watched.json["check_in"] as? [String: Any])?["check_in_id"] as? String, "\(watched.text)")
            let checkIn = try #require(UUID(uuidString: checkInText))
            // Planned an hour after the taste; the household's events are in order, so the egg before it was seen and planned nothing.
            let planned = try await TrackingReminders.eventually(checkIn) { $0.source == "allergen_check_in" }
            #expect(abs(planned.dueAt.timeIntervalSince(tried.addingTimeInterval(3600))) < 1)
            let quietCheckIn = AllergenCheckIn.id(forFoodLog: quietLog)
            #expect(try await TrackingReminders.row(quietCheckIn) == nil)
            let listed = try await family.send("GET", "check-ins")
            #expect((listed.json["check_ins"] as? [[String: Any]])?.map { $0["check_in_id"] as? String } == [checkIn.uuidString.lowercased()])

            // A partner with feed reminders on, who joins another household (and stays in this
            // one, reminded), then leaves this one.
            let partner = try await family.caregiver()
            let partnerId = try #require(UUID(uuidString: partner.userId))
            let childId = try #require(UUID(uuidString: family.child))
            let reminders = stack.gateway.baseURL.appendingPathComponent("v1/tracking/reminders")
            for caregiver in [partner, family.user] {
                let set = try await HTTPTestClient.send(
                    "PUT", reminders, body: try JSONSerialization.data(withJSONObject: ["feed_reminders": true, "feed_lead_minutes": 15]),
                    headers: caregiver.headers)
                #expect(set.status == 200)
            }
            let parentId = try #require(UUID(uuidString: family.user.userId))
            for hours in [9.0, 6.0, 3.0, 0.5] {
                _ = try await family.log("feeds", ["method": "bottle", "amount": 120, "unit": "ml", "at": TrackingTime.ago(hours * 3600)])
            }
            _ = try await TrackingReminders.nextFeed(child: childId, user: partnerId) { _ in true }
            let parentReminder = try await TrackingReminders.nextFeed(child: childId, user: parentId) { _ in true }
            let (other, otherHousehold) = try await GatewayUser.withHousehold(stack.gateway, name: "Elsewhere")
            let invite = try await HTTPTestClient.send(
                "POST", stack.gateway.baseURL.appendingPathComponent("v1/households/\(otherHousehold)/invites"), headers: other.headers)
            let code = try #require(invite.json["code"] as? String)
            #expect(try await HTTPTestClient.send("POST", stack.gateway.baseURL.appendingPathComponent("v1/invites/\(code)/accept"), headers: partner.headers).status == 200)
            #expect(try await TrackingReminders.nextFeedRows(child: childId, user: partnerId).count == 1, "joining another household keeps this one's reminders")
            // In two households, the partner sets each one's reminders on their own (the header says which).
            let unnamed = try await HTTPTestClient.send(
                "PUT", reminders, body: try JSONSerialization.data(withJSONObject: ["feed_lead_minutes": 45]), headers: partner.headers)
            #expect(unnamed.status == 400 && unnamed.errorField == "X-Hearth-Household", "\(unnamed.text)")
            let elsewhere = try await HTTPTestClient.send(
                "PUT", reminders, body: try JSONSerialization.data(withJSONObject: ["feed_reminders": true, "feed_lead_minutes": 45]),
                headers: partner.headers(["X-Hearth-Household": otherHousehold]))
            #expect(elsewhere.status == 200, "\(elsewhere.text)")
            @Sendable func lead(in household: String) async throws -> Int? {
                let read = try await HTTPTestClient.send("GET", reminders, headers: partner.headers(["X-Hearth-Household": household]))
                return read.json["feed_lead_minutes"] as? Int
            }
            #expect(try await KafkaTestEnvironment.eventually { try await lead(in: otherHousehold) == 45 })
            #expect(try await lead(in: family.household) == 15, "the first household keeps its own")
            let left = try await HTTPTestClient.send(
                "POST", stack.gateway.baseURL.appendingPathComponent("v1/households/\(family.household)/leave"), headers: partner.headers)
            #expect(left.status == 200, "\(left.text)")
            #expect(try await KafkaTestEnvironment.eventually {
                try await TrackingReminders.nextFeedRows(child: childId, user: partnerId).isEmpty
            }, "the partner's next-feed reminder for the household left is cancelled")
            // A new feed re-plans the parent's reminder (so it has been applied) and none for the partner.
            _ = try await family.log("feeds", ["method": "bottle", "amount": 120, "unit": "ml"])
            #expect(try await KafkaTestEnvironment.eventually {
                let rows = try await TrackingReminders.nextFeedRows(child: childId, user: parentId)
                return rows.count == 1 && rows.first?.0 != parentReminder
            }, "the parent's reminder follows the new feed")
            #expect(try await TrackingReminders.nextFeedRows(child: childId, user: partnerId).isEmpty, "and a new feed plans none for them")
            let kept = try await HTTPTestClient.send("GET", reminders, headers: partner.headers)
            #expect(kept.json["feed_lead_minutes"] as? Int == 45 && kept.json["feed_reminders"] as? Bool == true, "the other household's stay: \(kept.text)")
        }
    }
}
