import Foundation
import HearthEvents
import PostgresNIO
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
    
        /// Two gateways share the `households` projection's consumer group: a second one joining
        /// and the first one leaving while batches are being applied. A trigger holds each event
        /// 50 ms (150 s of work) until the first gateway has left, then 2 ms, so both rebalances
        /// land mid-flow however slow the machine, and the rest goes quickly. Every event takes
        /// effect exactly once, nothing is parked, no runner stops on a gap, and a replay finds the
        /// same table.
        @Test func twoInstancesThroughRebalancesApplyEveryEventOnce() async throws {
            let marker = "rebalance-\(UUID().uuidString.prefix(8).lowercased())"
            let envelopes = (0..<3000).map { _ in HouseholdFixtures.event(name: marker) }
            let ids = envelopes.map(\.data.householdId)
            let deadLettersBefore = try await HouseholdFixtures.deadLetterEnd()
            let environment = ["HEARTH_PROJECTION_BATCH_SIZE": "20", "HEARTH_PROJECTION_LINGER_MS": "0"]
            try await TestEnvironment.withPostgres { client in
                let function = marker.replacingOccurrences(of: "-", with: "_")
                // While this table has a row, the trigger holds each event long enough for both rebalances.
                let gate = "\(function)_gate"
                _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(gate) (held boolean)"), logger: TestEnvironment.logger)
                _ = try await client.query(PostgresQuery(unsafeSQL: "INSERT INTO \(gate) VALUES (true)"), logger: TestEnvironment.logger)
                let trigger = try await TestTrigger.install(
                    "\(function)", on: "households", events: "INSERT OR UPDATE", client: client, body: """
                        IF NEW.name = '\(marker)' THEN PERFORM pg_sleep(CASE WHEN EXISTS (SELECT 1 FROM \(gate)) THEN 0.05 ELSE 0.002 END); END IF;
                        """)
                func dropGate() async throws {
                    _ = try await client.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(gate)"), logger: TestEnvironment.logger)
                }
                do {
                    let first = try ServiceProcess("gateway", environment: environment)
                    try await first.waitUntilReady()
                    _ = try await HouseholdFixtures.publish(envelopes)
                    let second = try ServiceProcess("gateway", environment: environment)
                    try await second.waitUntilReady()
                    let midway = try await HouseholdFixtures.projected(ids, client: client).rows
                    // The second's join rebalances the group; once it holds partitions, the first
                    // leaves, and the group rebalances again.
                    let secondLog = second.logFile
                    let joined = await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        ((try? String(contentsOf: secondLog, encoding: .utf8)) ?? "").contains("partitions assigned")
                    }
                    #expect(joined)
                    await first.stop()
                    let leftAt = try await HouseholdFixtures.projected(ids, client: client).rows
                    _ = try await client.query(PostgresQuery(unsafeSQL: "DELETE FROM \(gate)"), logger: TestEnvironment.logger)
                    let complete = try await KafkaTestEnvironment.eventually(timeout: .seconds(120)) {
                        try await HouseholdFixtures.projected(ids, client: client).rows == 3000
                    }
                    let logs = first.logTail(lines: .max) + second.logTail(lines: .max)
                    #expect(second.isRunning, "\(second.logTail())")
                    await second.stop()
                    try await trigger.drop()
                    try await dropGate()
                    let applied = try await HouseholdFixtures.projected(ids, client: client).rows
                    #expect(complete, "\(applied) of 3000 applied")
                    #expect(midway < 3000 && leftAt < 3000, "the rebalances came after the last batch (\(midway), \(leftAt))")
                    #expect(logs.contains("partitions revoked"))
                    #expect(!logs.contains("offset gap"))
                    let projected = try await HouseholdFixtures.projected(ids, client: client)
                    #expect(projected.changes == 3000, "an event was applied more than once (or not at all)")
                    #expect(try await HouseholdFixtures.deadLetterEnd() == deadLettersBefore, "nothing goes to the DLQ")
                } catch {
                    try? await trigger.drop()
                    try? await dropGate()
                    throw error
                }
            }
            let replay = try await CommandLineTool.run(["replay", "households", "--dry-run"])
            #expect(replay.status == 0 && replay.output.contains("identical"), "\(replay.output)\n\(replay.errors)")
        }

        /// Reading the assigned partitions' offsets fails twice (as while Postgres restarts): the
        /// runner reads again with back-off instead of stopping the process.
        @Test func aPassingFailureWhileAssigningIsRetried() async throws {
            let suffix = UUID().uuidString.prefix(8).lowercased()
            try await TestEnvironment.withPostgres { client in
                let trigger = try await TestTrigger.install(
                    "assign_failures_\(suffix)", on: "projection_offsets", events: "INSERT", sequence: "assign_failures_\(suffix)", client: client, body: """
                        IF NEW.projection = 'households' AND nextval('assign_failures_\(suffix)') <= 2 THEN
                        RAISE EXCEPTION 'flaky' USING ERRCODE = '40001';
                        END IF;
                        """)
                do {
                    let household = UUID()
                    try await ServiceProcess.with("gateway") { gateway in
                        _ = try await HouseholdFixtures.publish([HouseholdFixtures.event(id: household)])
                        let applied = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                            try await HouseholdFixtures.projected([household], client: client).changes == 1
                        }
                        #expect(applied, "\(gateway.logTail())")
                        #expect(gateway.logTail(lines: .max).contains("cannot read the assigned partitions' offsets yet"))
                    }
                    try await trigger.drop()
                } catch {
                    try? await trigger.drop()
                    throw error
                }
            }
        }

        /// A query that hangs while partitions are assigned (Postgres frozen) does not hold the
        /// service's shutdown: the consumer abandons the assignment and the process exits.
        @Test func aHungQueryWhileAssigningDoesNotHoldShutdown() async throws {
            let suffix = UUID().uuidString.prefix(8).lowercased()
            try await TestEnvironment.withPostgres { client in
                let trigger = try await TestTrigger.install(
                    "assign_hangs_\(suffix)", on: "projection_offsets", events: "INSERT", client: client, body: """
                        IF NEW.projection = 'households' THEN PERFORM pg_sleep(30); END IF;
                        """)
                /// Ends the sleeping statement, so the trigger can be dropped at once.
                @Sendable func endHungQueries() async throws {
                    try await client.query(
                        """
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE pid <> pg_backend_pid() AND state = 'active' AND query LIKE 'INSERT INTO projection_offsets%'
                        """, logger: TestEnvironment.logger)
                }
                do {
                    let gateway = try ServiceProcess("gateway")
                    let hanging = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        let rows = try await client.query(
                            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'INSERT INTO projection_offsets%'",
                            logger: TestEnvironment.logger)
                        for try await count in rows.decode(Int.self) { return count > 0 }
                        return false
                    }
                    #expect(hanging, "the assignment reached the hanging insert: \(gateway.logTail())")
                    let started = ContinuousClock.now
                    await gateway.stop()
                    let took = ContinuousClock.now - started
                    #expect(took < .seconds(10), "shutdown took \(took): \(gateway.logTail())")
                    try await endHungQueries()
                    try await trigger.drop()
                } catch {
                    try? await endHungQueries()
                    try? await trigger.drop()
                    throw error
                }
            }
        }

        /// A stored offset beyond the end of the log (the topic was recreated under the projection)
        /// stops the projection with that reason; it used to restart from the log's start and
        /// pass over every event below the stored offset as "already applied".
        @Test func aStoredOffsetOutsideTheLogStopsTheProjection() async throws {
            let household = UUID()
            try await TestEnvironment.withPostgres { client in
                let partition: Int32
                do {
                    let gateway = try ServiceProcess("gateway")
                    try await gateway.waitUntilReady()
                    let reports = try await HouseholdFixtures.publish([HouseholdFixtures.event(id: household)])
                    partition = Int32(reports[0].partition)
                    let caughtUp = try await KafkaTestEnvironment.eventually {
                        try await Self.storedOffset(partition: Int(partition), client: client) == reports[0].offset + 1
                    }
                    try #require(caughtUp)
                    await gateway.stop()
                }
                try await client.query(
                    "UPDATE projection_offsets SET next_offset = next_offset + 100 WHERE projection = 'households' AND topic = 'households' AND partition = \(partition)",
                    logger: TestEnvironment.logger)
                let gateway = try ServiceProcess("gateway")
                let process = gateway.process
                let stopped = await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !process.isRunning }
                let log = gateway.logTail(lines: .max)
                await gateway.stop()
                try await client.query(
                    "UPDATE projection_offsets SET next_offset = next_offset - 100 WHERE projection = 'households' AND topic = 'households' AND partition = \(partition)",
                    logger: TestEnvironment.logger)
                #expect(stopped, "the gateway went on: \(log.suffix(2000))")
                #expect(log.contains("households/\(partition): the offset to start from is outside the log"), "\(log.suffix(2000))")
            }
        }

        /// The stored offset of one `households` partition.
        static func storedOffset(partition: Int, client: PostgresClient) async throws -> Int64 {
            let rows = try await client.query(
                "SELECT next_offset FROM projection_offsets WHERE projection = 'households' AND topic = 'households' AND partition = \(Int32(partition))",
                logger: TestEnvironment.logger)
            for try await offset in rows.decode(Int64.self) { return offset }
            return -1
        }

        /// A replay's swap (or another owner) moves the stored offset ahead of what the live
        /// runner holds: its compare-and-set then fails inside the transaction, wrapped by
        /// PostgresNIO. The runner must read the offsets again and go on from the stored one, not
        /// retry the stale batch for ever.
        @Test func anOffsetMovedAheadUnderTheRunnerIsReadAgain() async throws {
            let household = UUID()
            try await ServiceProcess.with("gateway") { gateway in
                try await TestEnvironment.withPostgres { client in
                    let first = try await HouseholdFixtures.publish([HouseholdFixtures.event(id: household, version: 1)])[0]
                    let base = first.offset + 1
                    let caughtUp = try await KafkaTestEnvironment.eventually {
                        try await Self.storedOffset(partition: Int(first.partition), client: client) == base
                    }
                    try #require(caughtUp)
                    try await client.query(
                        "UPDATE projection_offsets SET next_offset = next_offset + 2 WHERE projection = 'households' AND topic = 'households' AND partition = \(Int32(first.partition))",
                        logger: TestEnvironment.logger)
                    _ = try await HouseholdFixtures.publish((2...6).map { HouseholdFixtures.event(id: household, version: $0) })
                    let moved = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                        try await Self.storedOffset(partition: Int(first.partition), client: client) == base + 5
                    }
                    let stored = try await Self.storedOffset(partition: Int(first.partition), client: client)
                    #expect(moved, "stuck at \(stored), expected \(base + 5); gateway log:\n\(gateway.logTail())")
                    // The two events the offset was moved past are the replay's; the other three apply here.
                    #expect(try await HouseholdFixtures.projected([household], client: client).changes == 4)
                }
            }
            // No replay applied those two here, so the table now lacks them: a real replay sees the
            // difference and puts the table back as the events say, for the tests after this one.
            let mend = try await CommandLineTool.run(["replay", "households"])
            #expect(mend.status == 3 && mend.output.contains("DIFFERENT"), "\(mend.output)\n\(mend.errors)")
            let changes = try await TestEnvironment.withPostgres { try await HouseholdFixtures.projected([household], client: $0).changes }
            #expect(changes == 6)
        }

        /// Stopping while a batch is retried must not move the offset past it: the runner ends
        /// instead of taking the next batch, and the restarted service applies both, once.
        @Test func aBatchGivenUpAtShutdownIsNotSkipped() async throws {
            let household = UUID()
            let logger = TestEnvironment.logger
            try await TestEnvironment.withPostgres { client in
                // Version 2 of this household fails as a serialization failure would, until the trigger goes.
                let suffix = household.uuidString.prefix(8).lowercased()
                let trigger = try await TestTrigger.install(
                    "flaky_\(suffix)", on: "households", events: "INSERT OR UPDATE", client: client, body: """
                        IF NEW.household_id = '\(household.uuidString.lowercased())' AND NEW.version = 2 THEN
                        RAISE EXCEPTION 'flaky' USING ERRCODE = '40001';
                        END IF;
                        """)
                do {
                    let environment = ["HEARTH_PROJECTION_BATCH_SIZE": "1", "HEARTH_PROJECTION_LINGER_MS": "0"]
                    let gateway = try ServiceProcess("gateway", environment: environment)
                    try await gateway.waitUntilReady()
                    let positions = try await HouseholdFixtures.publish((1...3).map { HouseholdFixtures.event(id: household, version: $0) })
                    let logFile = gateway.logFile
                    let retrying = await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                        ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").contains("transient failure, retrying batch")
                    }
                    #expect(retrying, "\(gateway.logTail())")
                    await gateway.stop()
                    #expect(try await Self.storedOffset(partition: Int(positions[1].partition), client: client) == positions[1].offset,
                            "the offset moved past the version it gave up")
                    #expect(try await HouseholdFixtures.projected([household], client: client).changes == 1)
                    try await trigger.drop()
                    try await ServiceProcess.with("gateway") { _ in
                        let applied = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                            try await HouseholdFixtures.projected([household], client: client).changes == 3
                        }
                        #expect(applied)
                    }
                    let rows = try await client.query("SELECT version FROM households WHERE household_id = \(household)", logger: logger)
                    for try await version in rows.decode(Int.self) { #expect(version == 3) }
                } catch {
                    try? await trigger.drop()
                    throw error
                }
            }
        }

        /// A projection retrying the same batch for ever must not look healthy: once events wait and
        /// no offset has moved for `HEARTH_PROJECTION_STUCK_SECONDS`, `/readyz` answers 503 naming
        /// it stuck; when it moves again, ready again.
        @Test func aProjectionThatMakesNoProgressIsReportedStuck() async throws {
            let household = UUID()
            let suffix = household.uuidString.prefix(8).lowercased()
            try await TestEnvironment.withPostgres { client in
                let trigger = try await TestTrigger.install(
                    "stuck_\(suffix)", on: "households", events: "INSERT OR UPDATE", client: client, body: """
                        IF NEW.household_id = '\(household.uuidString.lowercased())' THEN RAISE EXCEPTION 'stuck' USING ERRCODE = '40001'; END IF;
                        """)
                do {
                    try await ServiceProcess.with("gateway", environment: ["HEARTH_PROJECTION_STUCK_SECONDS": "2"]) { gateway in
                        let readyz = gateway.baseURL.appendingPathComponent("readyz")
                        _ = try await HouseholdFixtures.publish([HouseholdFixtures.event(id: household)])
                        let stuck = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                            let (status, body) = try await HTTPTestClient.get(readyz)
                            return status == 503 && String(decoding: body, as: UTF8.self).contains(#""projection:households":"stuck""#)
                        }
                        #expect(stuck, "\(gateway.logTail())")
                        try await trigger.drop()
                        let recovered = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                            try await HTTPTestClient.get(readyz).0 == 200
                        }
                        #expect(recovered)
                        #expect(try await HouseholdFixtures.projected([household], client: client).changes == 1)
                    }
                } catch {
                    try? await trigger.drop()
                    throw error
                }
            }
        }

        /// A stored offset lowered under the runner (by hand, or a topic recreated) leaves events
        /// between it and the next delivered one that were never applied: the projection stops
        /// with a line saying so instead of moving past them.
        @Test func anOffsetGapStopsTheProjectionInsteadOfSkipping() async throws {
            let household = UUID()
            try await TestEnvironment.withPostgres { client in
                let gateway = try ServiceProcess("gateway")
                try await gateway.waitUntilReady()
                let first = try await HouseholdFixtures.publish((1...3).map { HouseholdFixtures.event(id: household, version: $0) })
                let partition = Int32(first[0].partition)
                let caughtUp = try await KafkaTestEnvironment.eventually {
                    try await Self.storedOffset(partition: Int(partition), client: client) == first[2].offset + 1
                }
                try #require(caughtUp)
                try await client.query(
                    "UPDATE projection_offsets SET next_offset = next_offset - 2 WHERE projection = 'households' AND topic = 'households' AND partition = \(partition)",
                    logger: TestEnvironment.logger)
                _ = try await HouseholdFixtures.publish([HouseholdFixtures.event(id: household, version: 4)])
                let process = gateway.process
                let stopped = await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !process.isRunning }
                let log = gateway.logTail(lines: .max)
                await gateway.stop()
                #expect(stopped, "the gateway went on: \(log.suffix(2000))")
                #expect(log.contains("offset gap in households/\(partition)"), "\(log.suffix(2000))")
                #expect(try await Self.storedOffset(partition: Int(partition), client: client) == first[2].offset - 1)
                // Put the offset back where the events say, for the tests after this one.
                try await client.query(
                    "UPDATE projection_offsets SET next_offset = next_offset + 2 WHERE projection = 'households' AND topic = 'households' AND partition = \(partition)",
                    logger: TestEnvironment.logger)
            }
        }
    }
}
