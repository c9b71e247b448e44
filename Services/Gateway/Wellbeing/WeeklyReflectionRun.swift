import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import Logging
import PostgresNIO

/// The weekly reflection, written once per user and week by a scheduled run: for every user with
/// activity in the last fortnight whose last whole week (Monday to Sunday in their zone) has no
/// reflection yet, the week's figures and the recap written from them
/// (`wellbeing.reflection_written`). The notifier turns each into a silent push with a badge,
/// held until the user's delivery window opens; the live connection shows it at once.
///
/// Several gateways may run it: a Postgres advisory lock lets one at a time through, and a week
/// already reflected is skipped, so a user gets one reflection per week.
struct WeeklyReflectionRun: Sendable {
    let space: WellbeingSpace
    let writer: WellbeingRecapWriter
    let client: PostgresClient
    let logger: Logger

    /// The advisory lock's key: "wellbeing reflections" in ASCII, any constant other runs do not use.
    static let lockKey: Int64 = 0x7765_6c6c_7265_666c

    func service(every interval: Duration) -> PeriodicService {
        PeriodicService("writing weekly reflections", every: interval, logger: logger) { try await writeDue(now: Date()) }
    }

    /// Writes what is due; answers how many reflections were written.
    @discardableResult
    func writeDue(now: Date) async throws -> Int {
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
