import Foundation
import HearthEvents
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite.Notifier {
    /// A chore occurrence becomes a reminder at its local time in its zone; publishing the same
    /// occurrence with a new time moves the reminder; a cancelled reminder is never sent.
    @Test func choreOccurrencesAreRemindedAtTheirLocalTimeAndReschedulesMoveThem() async throws {
        try await NotifierStack.with { stack, _ in
            let user = try await GatewayUser.signIn(stack.gateway)
            let userId = try #require(UUID(uuidString: user.userId))
            let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = berlin
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
            let occurrence = UUID()
            let first = Date().addingTimeInterval(4).rounded()
            let moved = first.addingTimeInterval(4)
            func chore(at: Date) -> ChoreScheduled {
                ChoreScheduled(
                    occurrenceId: occurrence, householdId: nil, userId: userId, runId: nil, chore: "Empty the dishwasher",
                    choreId: "dishwasher", assignee: "Ada", at: formatter.string(from: at), date: String(formatter.string(from: at).prefix(10)),
                    minutes: 10, timeZone: "Europe/Berlin")
            }
            let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-chores", lingerMs: 0)
            let publisher = EventPublisher(producer: producer, source: "tests", keys: nil)
            _ = try await publisher.publish(chore(at: first), correlationId: "chore-\(occurrence)")
            _ = try await publisher.publish(chore(at: moved), correlationId: "chore-\(occurrence)")
            await producer.close()

            // A reminder made and cancelled before it is due.
            let cancelled = try await stack.postReminder(user, title: "Never mind", at: Date().addingTimeInterval(3), channels: ["inbox"])
            let delete = try await HTTPTestClient.send(
                "DELETE", stack.gateway.baseURL.appendingPathComponent("v1/reminders/\(cancelled.uuidString.lowercased())"), headers: user.headers)
            #expect(delete.status == 202)

            #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(40)) {
                !(try await NotifierDatabase.log(reminders: [occurrence]).isEmpty)
            }, "the chore reminder was delivered")
            let projected: (Date, String, String)? = try await NotifierDatabase.query { client in
                let rows = try await client.query(
                    "SELECT due_at, title, source FROM reminders WHERE reminder_id = \(occurrence)", logger: TestEnvironment.logger)
                for try await (due, title, source) in rows.decode((Date, String, String).self) { return (due, title, source) as (Date, String, String)? }
                return nil as (Date, String, String)?
            }
            #expect(projected?.0 == moved, "the occurrence's local 'at' read in Europe/Berlin, moved by the reschedule")
            #expect(projected?.1 == "Empty the dishwasher" && projected?.2 == "chore")
            try await Task.sleep(for: .seconds(5))
            let log = try await NotifierDatabase.log(reminders: [occurrence])
            #expect(log.count == 1 && log.first?.channel == "inbox" && log.first?.outcome == "sent", "one delivery, at the new time: \(log.count)")
            #expect(try await NotifierDatabase.log(reminders: [cancelled]).isEmpty, "a cancelled reminder is not sent")
        }
    }
}

private extension Date {
    /// Whole seconds: local `at` strings carry no fraction.
    func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
