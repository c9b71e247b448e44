import Foundation
import Crypto
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import Logging
import PostgresNIO

/// The wellbeing space's scheduled run, every `HEARTH_WELLBEING_SCHEDULE_SECONDS`:
///
/// - **Weekly reflections**, written once per user and week: for every user with activity in the
///   last fortnight whose last whole week (Monday to Sunday in their zone) has no reflection yet,
///   the week's figures and the recap written from them (`wellbeing.reflection_written`). The
///   notifier turns each into a silent push with a badge, held until the user's delivery window
///   opens; the live connection shows it at once.
/// - **Check-in nudges**, by each user's reminder cadence (`CheckInNudge`): a reminder
///   (`reminder.requested`, source `wellbeing`, APNs only) due at the day's window opening, one id
///   per user and day, cancelled by the day's first check-in.
///
/// Several gateways may run it: a Postgres advisory lock lets one at a time through, a week
/// already reflected is skipped and a day's nudge has one id, so nothing goes out twice.
struct WellbeingSchedule: Sendable {
    let space: WellbeingSpace
    let writer: WellbeingRecapWriter
    let client: PostgresClient
    let logger: Logger

    /// The advisory lock's key: "wellbeing reflections" in ASCII, any constant other runs do not use.
    static let lockKey: Int64 = 0x7765_6c6c_7265_666c

    func service(every interval: Duration) -> PeriodicService {
        PeriodicService("wellbeing schedule: reflections and check-in nudges", every: interval, logger: logger) { try await writeDue(now: Date()) }
    }

    /// Writes what is due; answers how many reflections were written.
    @discardableResult
    func writeDue(now: Date) async throws -> Int {
        try await planNudges(now: now)
        return try await writeReflections(now: now)
    }

    /// The reminder of a user's check-in nudge on a day: the same id whoever plans it, so it is
    /// planned once and the day's first check-in can cancel it.
    static func nudgeId(user: UUID, day: String) -> UUID {
        let digest = Array(SHA256.hash(data: Data("wellbeing-nudge|\(user.uuidString.lowercased())|\(day)".utf8)).prefix(16))
        var bytes = digest
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8: custom
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    static let nudgeTitle = "A minute for a quick check-in?"

    /// Plans today's nudge for every user whose cadence names today and who has not checked in.
    func planNudges(now: Date) async throws {
        var users: [(UUID, WellbeingReminderCadence, DeliveryWindow)] = []
        let rows = try await client.query(
            "SELECT user_id, reminder_cadence, window_start, window_end, time_zone FROM wellbeing_settings WHERE reminder_cadence <> 'off'", logger: logger)
        for try await (user, cadenceText, start, end, zone) in rows.decode((UUID, String, String, String, String).self) {
            guard let cadence = WellbeingReminderCadence(rawValue: cadenceText), let window = try? DeliveryWindow.parse(start: start, end: end, timeZone: zone)
            else { continue }
            users.append((user, cadence, window))
        }
        for (user, cadence, window) in users {
            let last = try await space.readModel.checkIns(of: user, from: nil, to: nil, before: nil, limit: 1).first?.at
            guard let due = CheckInNudge.due(cadence: cadence, window: window, now: now, lastCheckIn: last) else { continue }
            // Requested once per day: a second request would be a new delivery at a new time.
            var first = false
            let planned = try await client.query(
                """
                INSERT INTO wellbeing_nudges_planned (user_id, day) VALUES (\(user), \(due.day)::date)
                ON CONFLICT (user_id, day) DO NOTHING RETURNING user_id
                """, logger: logger)
            for try await _ in planned.decode(UUID.self) { first = true }
            guard first else { continue }
            let reminderId = Self.nudgeId(user: user, day: due.day)
            do {
                try await space.publisher.publish(
                    ReminderRequested(
                        reminderId: reminderId, userId: user, householdId: nil, memberId: nil, title: Self.nudgeTitle, body: nil,
                        dueAt: due.at, urgent: false, channels: ["apns"], source: "wellbeing"),
                    correlationId: "wellbeing-nudge-\(due.day)")
            } catch {
                // Not requested after all: the next pass tries again.
                _ = try? await client.query("DELETE FROM wellbeing_nudges_planned WHERE user_id = \(user) AND day = \(due.day)::date", logger: logger)
                throw error
            }
            // A check-in that landed while this was planned cancelled a reminder that did not exist
            // yet; cancel it now (after the request, in the same partition, so it lands second).
            if let latest = try await space.readModel.checkIns(of: user, from: nil, to: nil, before: nil, limit: 1).first?.at, latest != last,
               CheckInNudge.due(cadence: cadence, window: window, now: now, lastCheckIn: latest) == nil
            {
                try await space.publisher.publish(
                    ReminderCancelled(reminderId: reminderId, userId: user, cancelledBy: user), correlationId: "wellbeing-nudge-\(due.day)")
            }
        }
    }

    func writeReflections(now: Date) async throws -> Int {
        try await client.withConnection { connection in
            var locked = false
            for try await got in try await connection.query("SELECT pg_try_advisory_lock(\(Self.lockKey))", logger: logger).decode(Bool.self) {
                locked = got
            }
            guard locked else { return 0 }
            let outcome: Result<Int, any Error>
            do {
                outcome = .success(try await writeAll(on: connection, now: now))
            } catch {
                outcome = .failure(error)
            }
            // A session lock: released on this connection before it goes back to the pool.
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
            return try outcome.get()
        }
    }

    private func writeAll(on connection: PostgresConnection, now: Date) async throws -> Int {
        var users: [UUID] = []
        let rows = try await connection.query(
            """
            SELECT DISTINCT user_id FROM wellbeing_checkins WHERE at > \(now.addingTimeInterval(-15 * 86_400)) AND NOT crisis
            UNION SELECT DISTINCT user_id FROM wellbeing_exercises WHERE completed_at > \(now.addingTimeInterval(-15 * 86_400))
            """, logger: logger)
        for try await user in rows.decode(UUID.self) { users.append(user) }
        var written = 0
        for user in users.sorted(by: { $0.uuidString < $1.uuidString }) where try await write(for: user, now: now) {
            written += 1
        }
        return written
    }

    private func write(for user: UUID, now: Date) async throws -> Bool {
        let settings = try await space.settings(of: user)
        let zone = space.zone(of: settings)
        let week = WeeklyFigures.week(containing: now.addingTimeInterval(-7 * 86_400), timeZone: zone)
        guard try await space.readModel.reflection(of: user, week: week) == nil else { return false }
        let activity = try await space.readModel.activity(of: user)
        guard let figures = WeeklyFigures.compute(
            weekStart: week, timeZone: zone, checkIns: activity.checkIns, quizzes: activity.quizzes, exercises: activity.exercises, now: now),
            figures.checkIns + figures.exercises + figures.quizzes > 0
        else { return false }
        let recap = await writer.recap(figures, user: user)
        let position = try await space.publisher.publish(
            WellbeingReflectionWritten(
                userId: user, week: week, figures: try JSONValueEncoder().encode(figures), recap: recap.text, writtenBy: recap.writtenBy, at: now),
            correlationId: "weekly-reflection-\(week)")
        // The next pass must see it, or a second gateway's pass could write the week again.
        try await space.consistency.awaitApplied(position, projections: [WellbeingSpace.projection])
        logger.info("weekly reflection written", metadata: ["user_id": "\(user)", "week": "\(week)"])
        return true
    }
}
