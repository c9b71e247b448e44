import Foundation
import HearthStore
@testable import NotifierService
import PostgresNIO
import Testing

extension BackboneSuite.Notifier {
    /// The allergen check-in loop end to end: a food with peanut tried two hours ago (less three
    /// seconds) → the notifier's check-in due now → delivered once → "report a reaction" → the
    /// child's profile marks peanut reacted (with where it came from) → the next meal plan of the
    /// household avoids peanut, and a second exposure is answered with a warning.
    @Test func anAllergenCheckInIsDeliveredOnceAndAReactionKeepsTheAllergenOutOfMealPlans() async throws {
        try await ServiceProcess.with("assist-orchestrator") { _ in
            try await NotifierStack.with { stack, _ in
                let family = try await TrackingFamily.make(stack.gateway)
                let token = try await stack.registerDevice(family.user)
                let triedAt = Date().addingTimeInterval(-2 * 3600 + 3)
                let logged = try await family.send("POST", "foods", ["food": "Peanut butter", "colour": "brown", "at": TrackingTime.iso(triedAt)])
                #expect(logged.status == 201, "\(logged.text)")
                let foodLogId = try #require((logged.json["log"] as? [String: Any])?["log_id"] as? String)
                #expect((logged.json["log"] as? [String: Any])?["allergens"] as? [String] == ["peanut"])
                let checkIn = try #require(logged.json["check_in"] as? [String: Any], "\(logged.text)")
                let checkInId = try #require((checkIn["check_in_id"] as? String).flatMap(UUID.init(uuidString:)))

                // The notifier planned it under the check-in's id, two hours after the food was tried.
                let planned = try await TrackingReminders.eventually(checkInId) { $0.source == "allergen_check_in" }
                #expect(abs(planned.dueAt.timeIntervalSince(triedAt.addingTimeInterval(2 * 3600))) < 1)
                #expect(planned.title == "How is Maya after Peanut butter?")
                #expect(planned.userId.uuidString.lowercased() == family.user.userId.lowercased())

                // Delivered once, to the caregiver's phone (with the check-in's actions) and inbox.
                let inboxURL = stack.gateway.baseURL.appendingPathComponent("v1/notifications")
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    let page = try await HTTPTestClient.send("GET", inboxURL, headers: family.user.headers)
                    return (page.json["notifications"] as? [[String: Any]] ?? []).contains { $0["title"] as? String == "How is Maya after Peanut butter?" }
                }, "the check-in reached the inbox")
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !stack.pushes(to: token).isEmpty }, "APNs got the push")
                try await Task.sleep(for: .seconds(2))
                let sent = try await NotifierDatabase.log(reminders: [checkInId])
                #expect(sent.count == 2 && sent.allSatisfy { $0.outcome == "sent" && $0.attempt == 1 }, "\(sent)")
                #expect(Set(sent.map(\.channel)) == ["apns", "inbox"])
                let pushes = stack.pushes(to: token)
                #expect(pushes.count == 1)
                let push = try #require(pushes.first)
                let payload = try #require(try JSONSerialization.jsonObject(with: push.body) as? [String: Any])
                #expect((payload["aps"] as? [String: Any])?["category"] as? String == "ALLERGEN_CHECK_IN")
                #expect(payload["reminder_id"] as? String == checkInId.uuidString.lowercased())
                #expect(payload["member_id"] as? String == family.child)

                // "Report a reaction": once.
                let answer = try await family.send("POST", "check-ins/\(checkInId.uuidString.lowercased())", [
                    "outcome": "reaction", "severity": "mild", "symptoms": ["hives around the mouth"]])
                #expect(answer.status == 200, "\(answer.text)")
                #expect(answer.json["outcome"] as? String == "reaction")
                let again = try await family.send("POST", "check-ins/\(checkInId.uuidString.lowercased())", ["outcome": "fine"])
                #expect(again.status == 409 && again.errorCode == "already_answered")
                let badOutcome = try await family.send("POST", "check-ins/\(checkInId.uuidString.lowercased())", ["outcome": "meh"])
                #expect(badOutcome.status == 400 && badOutcome.errorField == "outcome")

                // The child's page and the household profile show the reaction and where it came from.
                let child = try await family.send("GET", "")
                let peanut = try #require((child.json["allergens"] as? [[String: Any]])?.first { $0["allergen"] as? String == "peanut" }, "\(child.text)")
                #expect(peanut["reacted"] as? Bool == true)
                let reaction = try #require(peanut["reaction"] as? [String: Any])
                #expect(reaction["source"] as? String == "check_in")
                #expect(reaction["food_log_id"] as? String == foodLogId)
                #expect(reaction["severity"] as? String == "mild")
                let profile = try await HTTPTestClient.send(
                    "GET", stack.gateway.baseURL.appendingPathComponent("v1/households/\(family.household)/profile"), headers: family.user.headers)
                let reactions = try #require(profile.json["child_reactions"] as? [[String: Any]], "\(profile.text)")
                #expect(reactions.contains { $0["allergen"] as? String == "peanut" && $0["subject"] as? String == "Maya" })

                // A second exposure is logged, with a warning.
                let secondTaste = try await family.send("POST", "foods", ["food": "peanut puffs"])
                #expect(secondTaste.status == 201)
                #expect((secondTaste.json["warnings"] as? [[String: Any]])?.contains { $0["code"] as? String == "reacted_allergen" } == true,
                        "\(secondTaste.text)")

                // A check-in follows its food: edited to hold no watched allergen, it is withdrawn and not sent.
                let egg = try await family.send("POST", "foods", ["food": "Scrambled egg"])
                let eggLog = try #require((egg.json["log"] as? [String: Any])?["log_id"] as? String)
                let eggCheckInText = try #require((egg.json["check_in"] as? [String: Any])?["check_in_id"] as? String, "\(egg.text)")
                let eggCheckIn = try #require(UUID(uuidString: eggCheckInText))
                _ = try await TrackingReminders.eventually(eggCheckIn) { $0.status == "pending" }
                let renamed = try await family.send("PATCH", "foods/\(eggLog)", ["food": "Banana", "version": 1])
                #expect(renamed.status == 200, "\(renamed.text)")
                let checkIns = try await family.send("GET", "check-ins")
                #expect((checkIns.json["check_ins"] as? [[String: Any]])?.first { $0["check_in_id"] as? String == eggCheckIn.uuidString.lowercased() }?["outcome"] as? String == "withdrawn",
                        "\(checkIns.text)")
                _ = try await TrackingReminders.eventually(eggCheckIn) { $0.status == "cancelled" }

                // The next meal plan treats peanut as an allergy of the household.
                let (events, _) = try await AssistStack.run(
                    stack.gateway, user: family.user, ["goal": "Easy dinners for the week", "mode": "meals", "days": 7, "start_date": "2026-12-07"])
                let context = events[0].object
                let allergies = (context["prefs"] as? [String: Any])?["allergies"] as? [String] ?? []
                #expect(allergies.contains("peanut"), "\(allergies)")
                let final = try #require(events.first { $0.event == "final" }?.object)
                let days = try #require(final["days"] as? [[String: Any]])
                #expect(days.count == 7)
                for day in days {
                    let allergens = (day["recipe"] as? [String: Any])?["allergens"] as? [String] ?? ["?"]
                    #expect(!allergens.contains { $0.contains("peanut") }, "\(day)")
                }
            }
        }
    }

    /// Next-feed reminders: feeds every three hours, the last 2 h 45 min ago, and a 15-minute lead
    /// time → reminded now; a new feed moves the reminder; a caregiver without feed reminders gets
    /// none. A dose with a 4-hour interval given 4 hours ago is reminded now, through quiet hours
    /// for a caregiver who chose so; a later dose replaces it.
    @Test func nextFeedAndMedicationRemindersFollowTheLogs() async throws {
        try await NotifierStack.with { stack, _ in
            let family = try await TrackingFamily.make(stack.gateway, name: "Ada")
            let partner = try await family.caregiver()
            let bad = try await HTTPTestClient.send(
                "PUT", stack.gateway.baseURL.appendingPathComponent("v1/tracking/reminders"),
                body: try JSONSerialization.data(withJSONObject: ["feed_lead_minutes": 20]), headers: family.user.headers)
            #expect(bad.status == 400 && bad.errorField == "feed_lead_minutes")
            let set = try await HTTPTestClient.send(
                "PUT", stack.gateway.baseURL.appendingPathComponent("v1/tracking/reminders"),
                body: try JSONSerialization.data(withJSONObject: ["feed_reminders": true, "feed_lead_minutes": 15, "medication_breaks_quiet_hours": true]),
                headers: family.user.headers)
            #expect(set.status == 200, "\(set.text)")

            let last = Date().addingTimeInterval(-(2 * 3600 + 45 * 60) + 3)
            for hoursBefore in [9.0, 6.0, 3.0, 0.0] {
                _ = try await family.log("feeds", ["method": "bottle", "amount": 120, "unit": "ml", "at": TrackingTime.iso(last.addingTimeInterval(-hoursBefore * 3600))])
            }
            let userId = try #require(UUID(uuidString: family.user.userId))
            let childId = try #require(UUID(uuidString: family.child))
            let reminderId = try await TrackingReminders.nextFeed(child: childId, user: userId) {
                abs($0.dueAt.timeIntervalSince(last.addingTimeInterval(3 * 3600 - 15 * 60))) < 1
            }
            let planned = try #require(try await TrackingReminders.row(reminderId))
            #expect(planned.title == "Ada's next feed")
            #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                try await NotifierDatabase.log(reminders: [reminderId]).contains { $0.outcome == "sent" }
            }, "the next-feed reminder went out")
            let partnerId = try #require(UUID(uuidString: partner.userId))
            #expect(try await TrackingReminders.nextFeedRows(child: childId, user: partnerId).isEmpty, "no reminder for a caregiver who did not ask")

            // The answer of the gateway's prediction says how it was made.
            let prediction = try await family.send("GET", "next-feed")
            let predicted = try #require(prediction.json["prediction"] as? [String: Any], "\(prediction.text)")
            #expect(predicted["median_interval_minutes"] as? Double == 180)
            #expect(abs((TrackingTime.date(predicted["predicted_at"])?.timeIntervalSince(last.addingTimeInterval(3 * 3600))) ?? 99) < 1)

            // A new feed now moves the reminder to three hours after it, less the lead.
            let now = Date()
            _ = try await family.log("feeds", ["method": "nursing", "side": "left", "duration_minutes": 15, "at": TrackingTime.iso(now)], as: partner)
            let moved = try await TrackingReminders.nextFeed(child: childId, user: userId) {
                abs($0.dueAt.timeIntervalSince(now.addingTimeInterval(3 * 3600 - 15 * 60))) < 2
            }
            #expect(moved != reminderId)
            #expect(try await TrackingReminders.row(reminderId)?.status == "cancelled", "the earlier feed's reminder is done with")
            #expect(try await NotifierDatabase.log(reminders: [reminderId]).count == 1, "and it went out once")

            // Medication: a 4-hour dose given 4 hours ago (less 3 s) is due now, urgent for this caregiver.
            let dose = try await family.log("medications", [
                "name": "Paracetamol", "dose": 2.5, "dose_unit": "ml", "interval_hours": 4, "at": TrackingTime.iso(Date().addingTimeInterval(-4 * 3600 + 3))])
            let doseId = try #require((dose["log_id"] as? String).flatMap(UUID.init(uuidString:)))
            let doseReminder = TrackingReminderPlanner.doseReminderId(log: doseId)
            let due = try await TrackingReminders.eventually(doseReminder) { $0.source == "medication_due" }
            #expect(due.urgent)
            #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                try await NotifierDatabase.log(reminders: [doseReminder]).contains { $0.outcome == "sent" }
            }, "the dose reminder went out")
            // The next dose, given now, replaces it: the new one is due in 4 hours.
            let next = try await family.log("medications", ["name": "paracetamol", "dose": 2.5, "dose_unit": "ml", "interval_hours": 4])
            let nextId = try #require((next["log_id"] as? String).flatMap(UUID.init(uuidString:)))
            let nextDue = try await TrackingReminders.eventually(TrackingReminderPlanner.doseReminderId(log: nextId)) { $0.status == "pending" }
            #expect(nextDue.dueAt.timeIntervalSinceNow > 3.9 * 3600)

            // The reminders rebuild from the events alone to the same checksum.
            let rebuilt = try await CommandLineTool.run(["replay", "reminders"])
            #expect(rebuilt.status == 0, "\(rebuilt.output)\n\(rebuilt.errors)")
            #expect(rebuilt.output.contains("identical"), "\(rebuilt.output)")
        }
    }
}

/// Reads of the notifier's `reminders` rows.
enum TrackingReminders {
    struct Row: Sendable {
        var userId: UUID
        var title: String
        var dueAt: Date
        var urgent: Bool
        var source: String
        var status: String
    }

    static func row(_ id: UUID) async throws -> Row? {
        try await TestEnvironment.withPostgres { client in
            let rows = try await client.query(
                "SELECT user_id, title, due_at, urgent, source, status FROM reminders WHERE reminder_id = \(id)", logger: TestEnvironment.logger)
            for try await (user, title, due, urgent, source, status) in rows.decode((UUID, String, Date, Bool, String, String).self) {
                return Row(userId: user, title: title, dueAt: due, urgent: urgent, source: source, status: status)
            }
            return nil
        }
    }

    /// The pending next-feed reminders of a child for a caregiver.
    static func nextFeedRows(child: UUID, user: UUID) async throws -> [(UUID, Row)] {
        try await TestEnvironment.withPostgres { client in
            let rows = try await client.query(
                """
                SELECT reminder_id, user_id, title, due_at, urgent, source, status FROM reminders
                WHERE source = 'next_feed' AND member_id = \(child) AND user_id = \(user) AND status = 'pending'
                """, logger: TestEnvironment.logger)
            var found: [(UUID, Row)] = []
            for try await (id, user, title, due, urgent, source, status) in rows.decode((UUID, UUID, String, Date, Bool, String, String).self) {
                found.append((id, Row(userId: user, title: title, dueAt: due, urgent: urgent, source: source, status: status)))
            }
            return found
        }
    }

    /// The one pending next-feed reminder of the child for the caregiver, once it matches (20 s at most).
    static func nextFeed(child: UUID, user: UUID, _ condition: @Sendable @escaping (Row) -> Bool) async throws -> UUID {
        let deadline = ContinuousClock.now + .seconds(20)
        var last: [(UUID, Row)] = []
        while ContinuousClock.now < deadline {
            last = try await nextFeedRows(child: child, user: user)
            if last.count == 1, let (id, row) = last.first, condition(row) { return id }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("no single matching next-feed reminder; last \(last)")
        throw CancellationError()
    }

    /// The row once `condition` holds (20 s at most).
    static func eventually(_ id: UUID, _ condition: @Sendable @escaping (Row) -> Bool) async throws -> Row {
        let deadline = ContinuousClock.now + .seconds(20)
        var last: Row?
        while ContinuousClock.now < deadline {
            last = try await row(id)
            if let last, condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("reminder \(id) never matched; last \(String(describing: last))")
        throw CancellationError()
    }
}
