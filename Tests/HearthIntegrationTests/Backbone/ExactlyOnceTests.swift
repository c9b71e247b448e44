import Foundation
import HearthEvents
import Testing

extension BackboneSuite {
    /// SIGKILL the gateway (which runs the `households` and `event_log` projections) while it is
    /// applying 5,000 events; after a restart every event has taken effect exactly once.
    @Suite struct ExactlyOnce {
        @Test func killedMidBatchThenRestartedAppliesEveryEventOnce() async throws {
            let envelopes = (0..<5000).map { _ in HouseholdFixtures.event() }
            let ids = envelopes.map(\.data.householdId)
            let eventIds = envelopes.map(\.metadata.id)
            let deadLettersBefore = try await HouseholdFixtures.deadLetterEnd()
            // Small batches so the kill lands between many transactions, not after one big one.
            let environment = ["HEARTH_PROJECTION_BATCH_SIZE": "25", "HEARTH_PROJECTION_LINGER_MS": "0"]

            try await TestEnvironment.withPostgres { client in
                let first = try ServiceProcess("gateway", environment: environment)
                try await first.waitUntilReady()
                _ = try await HouseholdFixtures.publish(envelopes)
                var seenAtKill = (rows: 0, changes: 0)
                let caughtMidway = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    let progress = try await HouseholdFixtures.projected(ids, client: client)
                    return progress.rows > 0
                }
                #expect(caughtMidway)
                await first.kill()
                seenAtKill = try await HouseholdFixtures.projected(ids, client: client)
                #expect(seenAtKill.rows < 5000, "the kill came after the last batch; nothing was interrupted")

                try await ServiceProcess.with("gateway", environment: environment) { _ in
                    let complete = try await KafkaTestEnvironment.eventually(timeout: .seconds(60)) {
                        let progress = try await HouseholdFixtures.projected(ids, client: client)
                        let archive = try await HouseholdFixtures.archived(eventIds, client: client)
                        return progress.rows == 5000 && archive.rows == 5000
                    }
                    #expect(complete)
                }
                let projected = try await HouseholdFixtures.projected(ids, client: client)
                #expect(projected.rows == 5000)
                #expect(projected.changes == 5000, "an event was applied more than once (or not at all)")
                let archived = try await HouseholdFixtures.archived(eventIds, client: client)
                #expect(archived.rows == 5000)
                #expect(archived.distinct == 5000)
                #expect(try await HouseholdFixtures.deadLetterEnd() == deadLettersBefore, "nothing goes to the DLQ")
            }
        }

        /// Events of one household folded into one batch leave the row as applying them one by
        /// one would: the highest version, the last name, the last known user.
        @Test func batchingDoesNotChangeTheOutcome() async throws {
            let household = UUID()
            var first = HouseholdFixtures.event(id: household, version: 3, name: "first")
            first.data.userId = "user-a"
            let second = HouseholdFixtures.event(id: household, version: 1, name: "second")
            try await ServiceProcess.with("gateway", environment: ["HEARTH_PROJECTION_LINGER_MS": "200"]) { _ in
                _ = try await HouseholdFixtures.publish([first, second])
                try await TestEnvironment.withPostgres { client in
                    let applied = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                        try await HouseholdFixtures.projected([household], client: client).changes == 2
                    }
                    #expect(applied)
                    let rows = try await client.query(
                        "SELECT version, name, user_id FROM households WHERE household_id = \(household)", logger: TestEnvironment.logger)
                    for try await (version, name, userId) in rows.decode((Int, String?, String?).self) {
                        #expect(version == 3)
                        #expect(name == "second")
                        #expect(userId == "user-a")
                    }
                }
            }
        }
    }
}
