import Foundation
import HearthEvents
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite.Notifier {
    /// `chore_reminder_lead_minutes`: a chore occurrence at T is reminded at T − lead for a user
    /// who set a lead time and at T for one who did not; a rescheduled occurrence moves its
    /// reminder, lead included; a lead time set after the occurrence was projected still applies;
    /// changing it after the reminder went out does not send it again. Bad values are a 400.
    @Test func choreRemindersGoOutTheUsersLeadTimeBeforeTheOccurrence() async throws {
        try await NotifierStack.with { stack, _ in
            let early = try await GatewayUser.signIn(stack.gateway)
            let onTime = try await GatewayUser.signIn(stack.gateway)
            let earlyId = try #require(UUID(uuidString: early.userId))
            let onTimeId = try #require(UUID(uuidString: onTime.userId))
            let settingsURL = stack.gateway.baseURL.appendingPathComponent("v1/notifications/settings")

            for bad in [-1, 1441, "30", 2.5, NSNull()] as [Any] {
                let reply = try await HTTPTestClient.send(
                    "PUT", settingsURL, body: try JSONSerialization.data(withJSONObject: ["chore_reminder_lead_minutes": bad]),
                    headers: early.headers)
                #expect(reply.status == 400 && reply.errorField == "chore_reminder_lead_minutes", "\(bad): \(reply.status) \(reply.errorField ?? "-")")
            }

            @Sendable func setLead(_ user: GatewayUser, _ userId: UUID, _ minutes: Int) async throws {
                let reply = try await HTTPTestClient.send(
                    "PUT", settingsURL, body: try JSONSerialization.data(withJSONObject: ["chore_reminder_lead_minutes": minutes]),
                    headers: user.headers)
                #expect(reply.status == 202, "\(String(decoding: reply.body, as: UTF8.self))")
                #expect(try await KafkaTestEnvironment.eventually {
                    try await ChoreLeadDatabase.leadMinutes(userId) == minutes
                }, "lead \(minutes) projected")
            }
            try await setLead(early, earlyId, 30)

            let utc: DateFormatter = {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = .gmt
                formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
                return formatter
            }()
            func chore(_ occurrence: UUID, for userId: UUID, at: Date) -> ChoreScheduled {
                ChoreScheduled(
                    occurrenceId: occurrence, householdId: nil, userId: userId, runId: nil, chore: "Take out the bins", choreId: "bins",
                    assignee: "Ada", at: utc.string(from: at), date: String(utc.string(from: at).prefix(10)), minutes: 5, timeZone: "UTC")
            }
            // Both occurrences are 30 minutes and 3 seconds away: only a 30-minute lead makes one due now.
            let occurrenceAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 30 * 60 + 3).rounded(.down))
            let earlyOccurrence = UUID()
            let onTimeOccurrence = UUID()
            let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-chore-lead", lingerMs: 0)
            let publisher = EventPublisher(producer: producer, source: "tests", keys: nil)
            // First scheduled two hours out, then moved: the reminder must follow the move.
            _ = try await publisher.publish(
                chore(earlyOccurrence, for: earlyId, at: occurrenceAt.addingTimeInterval(2 * 3600)), correlationId: "chore-\(earlyOccurrence)")
            _ = try await publisher.publish(chore(earlyOccurrence, for: earlyId, at: occurrenceAt), correlationId: "chore-\(earlyOccurrence)")
            _ = try await publisher.publish(chore(onTimeOccurrence, for: onTimeId, at: occurrenceAt), correlationId: "chore-\(onTimeOccurrence)")
            await producer.close()

            #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(40)) {
                !(try await NotifierDatabase.log(reminders: [earlyOccurrence]).isEmpty)
            }, "the occurrence was reminded 30 minutes ahead")
            let earlyDispatch = try await ChoreLeadDatabase.dispatch(earlyOccurrence)
            #expect(earlyDispatch?.dueAt == occurrenceAt, "the generation is the (rescheduled) occurrence time")
            #expect(earlyDispatch?.remindAt == occurrenceAt.addingTimeInterval(-30 * 60), "due at the occurrence less the lead time")
            #expect(try await ChoreLeadDatabase.loggedDueTimes(earlyOccurrence) == [occurrenceAt.addingTimeInterval(-30 * 60)])

            // The same occurrence time for a user without a lead time: projected, not yet due.
            #expect(try await KafkaTestEnvironment.eventually {
                try await ChoreLeadDatabase.reminderDueAt(onTimeOccurrence) == occurrenceAt
            }, "the lead-0 user's occurrence was projected")
            #expect(try await ChoreLeadDatabase.dispatch(onTimeOccurrence) == nil, "not queued: it is due at the occurrence")
            #expect(try await NotifierDatabase.log(reminders: [onTimeOccurrence]).isEmpty)

            // A lead time set after the occurrence was projected applies to it.
            try await setLead(onTime, onTimeId, 30)
            #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(40)) {
                !(try await NotifierDatabase.log(reminders: [onTimeOccurrence]).isEmpty)
            }, "the new lead time made the projected occurrence due")
            #expect(try await ChoreLeadDatabase.dispatch(onTimeOccurrence)?.remindAt == occurrenceAt.addingTimeInterval(-30 * 60))

            // A longer lead time after the reminder went out does not send it again.
            try await setLead(early, earlyId, 40)
            try await Task.sleep(for: .seconds(3))
            let log = try await NotifierDatabase.log(reminders: [earlyOccurrence])
            #expect(log.count == 1 && log.first?.outcome == "sent", "one delivery: \(log.count)")
        }
    }
}

/// The lead-time columns, read directly.
private enum ChoreLeadDatabase {
    static func leadMinutes(_ userId: UUID) async throws -> Int? {
        try await NotifierDatabase.query { client in
            let rows = try await client.query(
                "SELECT chore_reminder_lead_minutes FROM notification_settings WHERE user_id = \(userId)", logger: TestEnvironment.logger)
            for try await minutes in rows.decode(Int32.self) { return Int(minutes) }
            return nil
        }
    }

    static func reminderDueAt(_ reminderId: UUID) async throws -> Date? {
        try await NotifierDatabase.query { client in
            let rows = try await client.query("SELECT due_at FROM reminders WHERE reminder_id = \(reminderId)", logger: TestEnvironment.logger)
            for try await due in rows.decode(Date.self) { return due }
            return nil
        }
    }

    struct Dispatch: Equatable, Sendable {
        var dueAt: Date
        var remindAt: Date?
    }

    static func dispatch(_ reminderId: UUID) async throws -> Dispatch? {
        try await NotifierDatabase.query { client in
            let rows = try await client.query(
                "SELECT due_at, remind_at FROM reminder_dispatch WHERE reminder_id = \(reminderId)", logger: TestEnvironment.logger)
            for try await (due, remind) in rows.decode((Date, Date?).self) { return Dispatch(dueAt: due, remindAt: remind) }
            return nil
        }
    }

    /// The `due_at` of every logged attempt (what `notification.sent` reports).
    static func loggedDueTimes(_ reminderId: UUID) async throws -> [Date] {
        try await NotifierDatabase.query { client in
            let rows = try await client.query(
                "SELECT due_at FROM notification_log WHERE reminder_id = \(reminderId) ORDER BY log_id", logger: TestEnvironment.logger)
            var found: [Date] = []
            for try await due in rows.decode(Date.self) { found.append(due) }
            return found
        }
    }
}
