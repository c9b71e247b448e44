import Foundation
import HearthEvents
import HearthKafka
import PostgresNIO
import Testing

extension BackboneSuite {
    /// `hearthctl replay households` rebuilds the read model into shadow tables and swaps them in,
    /// with the same checksum as before: once from Kafka, once from the archive after the dev
    /// broker has dropped the start of a partition.
    @Suite struct Replay {
        @Test func rebuildFromTheTopicKeepsTheChecksum() async throws {
            try await ServiceProcess.with("gateway") { _ in
                let envelopes = (0..<300).map { index in HouseholdFixtures.event(version: 1 + index % 3) }
                _ = try await HouseholdFixtures.publish(envelopes)
                try await TestEnvironment.withPostgres { client in
                    let done = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        try await HouseholdFixtures.projected(envelopes.map(\.data.householdId), client: client).rows == 300
                    }
                    #expect(done)
                }
                let result = try await CommandLineTool.run(["replay", "households"])
                #expect(result.status == 0, "\(result.output)\n\(result.errors)")
                #expect(result.output.contains("identical"))
                #expect(result.output.contains(": read from kafka"))
                let before = try #require(result.output.split(separator: "\n").first { $0.contains("checksum before") })
                #expect(before.contains("households="))
                // The swapped-in table keeps the live table's storage parameters (its fillfactor).
                try await TestEnvironment.withPostgres { client in
                    let options = try await client.query(
                        "SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = 'public.households'::regclass"
                    ).collect().first?.decode(String.self)
                    #expect(options == "fillfactor=70")
                }
                // household_members passes over every household.upserted: its progress still
                // reaches the end of the topic, and its table is unchanged.
                let members = try await CommandLineTool.run(["replay", "household_members"])
                #expect(members.status == 0, "\(members.output)\n\(members.errors)")
                #expect(members.output.contains("identical"), "\(members.output)")
                let last = try #require(members.errors.split(separator: "\r").last { $0.contains(" events, ") }, "\(members.errors)")
                let counts = try #require(last.firstMatch(of: /\] (\d+)\/(\d+) events/), "\(last)")
                #expect(counts.1 == counts.2, "\(last)")
                #expect((Int(counts.2) ?? 0) >= 300, "\(last)")
            }
        }

        /// Two replays of one projection would drop each other's shadow schema: while one runs (its
        /// advisory lock held, here by the test), another fails at once and changes nothing.
        @Test func aSecondReplayOfTheSameProjectionIsRefused() async throws {
            try await TestEnvironment.withPostgres { client in
                try await client.withConnection { connection in
                    _ = try await connection.query("SELECT pg_advisory_lock(hashtext('hearth.replay.households'))", logger: TestEnvironment.logger)
                    let started = ContinuousClock.now
                    let refused = try await CommandLineTool.run(["replay", "households"])
                    _ = try await connection.query("SELECT pg_advisory_unlock(hashtext('hearth.replay.households'))", logger: TestEnvironment.logger)
                    #expect(refused.status != 0, "\(refused.output)")
                    #expect(refused.errors.contains("a replay of households is already running"), "\(refused.errors)")
                    #expect(ContinuousClock.now - started < .seconds(10))
                }
            }
            let replay = try await CommandLineTool.run(["replay", "households", "--dry-run"])
            #expect(replay.status == 0 && replay.output.contains("identical"), "\(replay.output)\n\(replay.errors)")
        }

        /// A reader holding the live table keeps the swap from its lock: the swap gives up after its
        /// `lock_timeout` (rather than queueing every later reader behind it), rolls back, and tries
        /// again; once the reader is gone, the swap goes through.
        @Test func aSwapThatCannotLockTheLiveTablesRetries() async throws {
            let started = ContinuousClock.now
            let replay = try await TestEnvironment.withPostgres { client in
                try await client.withConnection { connection in
                    try await connection.query("BEGIN", logger: TestEnvironment.logger)
                    try await connection.query("SELECT count(*) FROM households", logger: TestEnvironment.logger)
                    // The replay rebuilds, then waits at the swap; the reader leaves after ~8 s.
                    let release = Task {
                        try await Task.sleep(for: .seconds(8))
                        try await connection.query("ROLLBACK", logger: TestEnvironment.logger)
                    }
                    let replay = try await CommandLineTool.run(["replay", "households"], environment: ["HEARTH_LOG_LEVEL": "warning"])
                    try await release.value
                    return replay
                }
            }
            #expect(replay.status == 0, "\(replay.output)\n\(replay.errors.suffix(2000))")
            #expect(replay.errors.contains("could not lock the live tables in time; retrying"), "\(replay.errors.suffix(2000))")
            #expect(ContinuousClock.now - started > .seconds(5))
        }

        /// `--dry-run` builds the shadow tables and compares, and leaves the live tables alone: a
        /// row spoiled by hand shows as DIFFERENT (exit 3) and stays spoiled. The real replay then
        /// mends it, and the one after that finds nothing to mend.
        @Test func dryRunComparesWithoutSwappingAndTheRealReplayMends() async throws {
            let envelopes = (0..<5).map { _ in HouseholdFixtures.event(name: "The Dry Runners") }
            let spoiled = envelopes[0].data.householdId
            try await ServiceProcess.with("gateway") { _ in
                _ = try await HouseholdFixtures.publish(envelopes)
                try await TestEnvironment.withPostgres { client in
                    let done = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        try await HouseholdFixtures.projected(envelopes.map(\.data.householdId), client: client).rows == envelopes.count
                    }
                    try #require(done)
                }
            }
            /// The live table's oid (a swap replaces the table) and the spoiled row's name.
            func live() async throws -> (table: Int64, name: String?) {
                try await TestEnvironment.withPostgres { client in
                    let rows = try await client.query(
                        "SELECT 'public.households'::regclass::oid::bigint, (SELECT name FROM households WHERE household_id = \(spoiled))",
                        logger: TestEnvironment.logger)
                    for try await (oid, name) in rows.decode((Int64, String?).self) { return (oid, name) }
                    return (0, nil)
                }
            }
            try await TestEnvironment.withPostgres { client in
                _ = try await client.query("UPDATE households SET name = 'spoiled by hand' WHERE household_id = \(spoiled)", logger: TestEnvironment.logger)
            }
            let before = try await live()
            #expect(before.name == "spoiled by hand")

            let dry = try await CommandLineTool.run(["replay", "households", "--dry-run"])
            #expect(dry.status == 3, "\(dry.output)\n\(dry.errors)")
            #expect(dry.output.contains("projection: households (dry run)"), "\(dry.output)")
            #expect(dry.output.contains("DIFFERENT"), "\(dry.output)")
            let afterDry = try await live()
            #expect(afterDry.table == before.table, "a dry run swapped the table")
            #expect(afterDry.name == "spoiled by hand")
            let shadows = try await TestEnvironment.withPostgres { client in
                try await client.query("SELECT count(*)::bigint FROM pg_namespace WHERE nspname LIKE 'replay\\_%'", logger: TestEnvironment.logger)
                    .collect().first?.decode(Int64.self)
            }
            #expect(shadows == 0, "a shadow schema was left behind")

            let mend = try await CommandLineTool.run(["replay", "households"])
            #expect(mend.status == 3, "the live table differed from its events: \(mend.output)\n\(mend.errors)")
            let mended = try await live()
            #expect(mended.table != before.table)
            #expect(mended.name == "The Dry Runners")

            let again = try await CommandLineTool.run(["replay", "households", "--dry-run"])
            #expect(again.status == 0, "\(again.output)\n\(again.errors)")
            #expect(again.output.contains("identical"), "\(again.output)")
        }

        @Test func rebuildFromTheArchiveOnceKafkaDroppedTheStart() async throws {
            // One household key, so every event lands on one partition; ~5 KB each, so 1,600 of
            // them pass the dev broker's 5 MiB per-partition limit and the oldest are deleted.
            let household = UUID()
            let envelopes = (0..<1600).map { index in
                HouseholdFixtures.event(id: household, version: index + 1, name: String(repeating: "n", count: 190), listEntry: String(repeating: "a", count: 55), listSize: 40)
            }
            let partition = try await ServiceProcess.with("gateway") { _ in
                var partition: Int32 = 0
                try await TestEnvironment.withPostgres { client in
                    for chunk in stride(from: 0, to: envelopes.count, by: 100) {
                        let slice = Array(envelopes[chunk..<chunk + 100])
                        partition = try await HouseholdFixtures.publish(slice).last!.partition
                        // Let the archive keep up before the broker drops anything.
                        let archived = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                            try await HouseholdFixtures.archived(slice.map(\.metadata.id), client: client).rows == slice.count
                        }
                        #expect(archived)
                    }
                    let applied = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        try await HouseholdFixtures.projected([household], client: client).changes == 1600
                    }
                    #expect(applied)
                }
                return partition
            }
            let admin = KafkaAdmin(bootstrapServers: try KafkaTestEnvironment.bootstrap(), logger: KafkaTestEnvironment.logger)
            let low = try await admin.watermarks(KafkaTopicPartition(topic: Topic.households.name, partition: partition)).low
            #expect(low > 0, "the dev broker kept the whole partition; the archive path was not exercised")

            let result = try await CommandLineTool.run(["replay", "households"])
            #expect(result.status == 0, "\(result.output)\n\(result.errors)")
            // The archive holds the partition up to its end, so Kafka may have nothing left to add.
            let line = result.output.split(separator: "\n").first { $0.contains("households/\(partition): read from") }
            #expect(line?.contains("read from archive") == true, "\(result.output)")
            #expect(result.output.contains("identical"))
        }
    }
}
