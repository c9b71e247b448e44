import Foundation
import HearthEvents
import HearthStore
import PostgresNIO
import Synchronization
import Testing

extension BackboneSuite {
    /// `hearthctl tail`, `trace` and `dlq` against a running gateway with known events.
    @Suite struct Hearthctl {
        /// Three events of one correlation, each caused by the one before.
        func publishChain(correlation: String) async throws -> [Envelope<HouseholdUpserted>] {
            var chain: [Envelope<HouseholdUpserted>] = []
            var cause: String?
            for step in 0..<3 {
                var envelope = HouseholdFixtures.event(name: "chain step \(step)")
                envelope.metadata.correlationId = correlation
                envelope.metadata.causationId = cause
                cause = envelope.metadata.id.uuidString.lowercased()
                chain.append(envelope)
            }
            _ = try await HouseholdFixtures.publish(chain)
            return chain
        }

        /// `hearthctl publish` wraps each stdin line in the one envelope writer's envelope and sends
        /// it to its catalogue topic; a line that is not a current event stops it, naming the line.
        @Test func publishSendsEachLineAsAnEventAndNamesTheFirstBadLine() async throws {
            let correlation = "publish-\(UUID().uuidString.prefix(8))"
            let events = (0..<2).map { HouseholdFixtures.event(name: "Published \($0)").data }
            let households = events.map { $0.householdId.uuidString.lowercased() }
            let lines = try events.map { payload in
                let encoded = String(decoding: try JSONEncoder.hearth().encode(payload), as: UTF8.self)
                return #"{"type":"household.upserted","correlation_id":"\#(correlation)","payload":\#(encoded)}"#
            }
            let published = try await CommandLineTool.run(["publish"], input: lines.joined(separator: "\n") + "\n")
            #expect(published.status == 0, "\(published.errors)")
            #expect(published.output.contains("published 2 events"), "\(published.output)")

            let tail = try await CommandLineTool.run(["tail", "households", "--correlation", correlation, "--json"])
            #expect(tail.status == 0, "\(tail.errors)")
            let tailed = tail.output.split(separator: "\n").compactMap { line in
                try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            }
            #expect(tailed.count == 2)
            #expect(Set(tailed.compactMap { $0["key"] as? String }) == Set(households), "keyed by household: \(tailed)")
            #expect(tailed.allSatisfy { $0["source"] as? String == "hearthctl" }, "\(tailed)")

            let bad = lines[0] + "\n" + #"{"type":"household.upserted","payload":{"name":"no id"}}"# + "\n"
            let refused = try await CommandLineTool.run(["publish"], input: bad)
            #expect(refused.status != 0)
            #expect(refused.errors.contains("line 2"), "\(refused.errors)")
            #expect(refused.errors.contains("household_id"), "\(refused.errors)")

            let unknown = try await CommandLineTool.run(["publish"], input: #"{"type":"household.teleported","payload":{}}"# + "\n")
            #expect(unknown.status != 0)
            #expect(unknown.errors.contains("line 1"), "\(unknown.errors)")
        }

        @Test func tailAndTraceShowAKnownChain() async throws {
            let correlation = "chain-\(UUID().uuidString.prefix(8))"
            try await ServiceProcess.with("gateway") { _ in
                let chain = try await publishChain(correlation: correlation)
                try await TestEnvironment.withPostgres { client in
                    let archived = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                        try await HouseholdFixtures.archived(chain.map(\.metadata.id), client: client).rows == 3
                    }
                    #expect(archived)
                }

                let tail = try await CommandLineTool.run(["tail", "households", "--correlation", correlation])
                #expect(tail.status == 0, "\(tail.errors)")
                let lines = tail.output.split(separator: "\n")
                #expect(lines.count == 3)
                #expect(lines.allSatisfy { $0.contains("household.upserted v1") && $0.contains("corr=\(correlation)") })

                let json = try await CommandLineTool.run(["tail", "households", "--correlation", correlation, "--json"])
                let ids = json.output.split(separator: "\n").compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
                }
                // Three keys, three partitions: tail keeps order within a partition, not across them.
                #expect(Set(ids) == Set(chain.map { $0.metadata.id.uuidString.lowercased() }))
                #expect(ids.count == 3)

                let trace = try await CommandLineTool.run(["trace", correlation])
                #expect(trace.status == 0, "\(trace.errors)")
                let steps = trace.output.split(separator: "\n").filter { $0.contains("household.upserted") }
                #expect(steps.count == 3)
                // Indented one level per causation step, with the latency from the cause.
                #expect(steps.count == 3 && steps[0].hasPrefix("household.upserted"))
                #expect(steps.count == 3 && steps[1].hasPrefix("   └─ household.upserted") && steps[1].contains("+"))
                #expect(steps.count == 3 && steps[2].hasPrefix("      └─ household.upserted"))

                // Any one event's id, in either case, finds its whole chain.
                let byEventId = try await CommandLineTool.run(["trace", chain[1].metadata.id.uuidString.uppercased(), "--json"])
                #expect(byEventId.status == 0, "\(byEventId.errors)")
                let traced = (try? JSONSerialization.jsonObject(with: Data(byEventId.output.utf8)) as? [[String: Any]]) ?? []
                #expect(Set(traced.compactMap { $0["id"] as? String }) == Set(chain.map { $0.metadata.id.uuidString.lowercased() }))
            }

            let missing = try await CommandLineTool.run(["trace", "no-such-correlation-\(UUID())"])
            #expect(missing.status != 0)
            #expect(missing.errors.contains("no archived event"))
            let badTopic = try await CommandLineTool.run(["tail", "no-such-topic"])
            #expect(badTopic.status != 0)
            #expect(badTopic.errors.split(separator: "\n").count == 1)
        }

        /// `tail`'s filters and starting points over two batches of one correlation, the second
        /// published after a whole-second boundary; then `--follow` printing an event published
        /// while it waits.
        @Test func tailFiltersByKeyTypeAndTimeAndFollows() async throws {
            let correlation = "tail-\(UUID().uuidString.prefix(8))"
            func batch(_ count: Int) -> [Envelope<HouseholdUpserted>] {
                (0..<count).map { _ in
                    var envelope = HouseholdFixtures.event(name: "tail test")
                    envelope.metadata.correlationId = correlation
                    return envelope
                }
            }
            func ids(_ envelopes: [Envelope<HouseholdUpserted>]) -> Set<String> { Set(envelopes.map { $0.metadata.id.uuidString.lowercased() }) }
            func ids(ofLines output: String) -> [String] {
                output.split(separator: "\n").compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
                }
            }
            func tail(_ arguments: [String]) async throws -> [String] {
                let result = try await CommandLineTool.run(["tail", "households", "--correlation", correlation, "--json"] + arguments)
                #expect(result.status == 0, "\(arguments): \(result.errors)")
                return ids(ofLines: result.output)
            }

            let first = batch(3)
            _ = try await HouseholdFixtures.publish(first)
            let boundary = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.up))
            while Date() <= boundary { try await Task.sleep(for: .milliseconds(50)) }
            let second = batch(2)
            _ = try await HouseholdFixtures.publish(second)

            let everything = ids(first).union(ids(second))
            #expect(Set(try await tail([])) == everything)
            #expect(Set(try await tail(["--from", Timestamp.format(boundary)])) == ids(second))
            #expect(try await tail(["--from", "end"]).isEmpty)
            #expect(try await tail(["--key", first[1].metadata.key]) == [first[1].metadata.id.uuidString.lowercased()])
            #expect(Set(try await tail(["--type", HouseholdUpserted.eventType])) == everything)
            #expect(try await tail(["--type", "household.no_such_type"]).isEmpty)

            // --raw prints each envelope as it is on the topic.
            let raw = try await CommandLineTool.run(["tail", "households", "--correlation", correlation, "--raw"])
            let decoder = JSONDecoder.hearth()
            let envelopes = raw.output.split(separator: "\n").compactMap { try? decoder.decode(Envelope<HouseholdUpserted>.self, from: Data($0.utf8)) }
            #expect(envelopes.count == 5)
            #expect(Set(envelopes.map { $0.metadata.id.uuidString.lowercased() }) == everything)
            #expect(envelopes.allSatisfy { $0.data.name == "tail test" })

            let following = try CommandLineTool.start(["tail", "households", "--correlation", correlation, "--json", "--follow"])
            defer { following.stop() }
            /// Whether `--follow` has printed `wanted` within 20 s.
            func printed(_ wanted: Set<String>) async throws -> Bool {
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline {
                    if wanted.isSubset(of: ids(ofLines: following.output)) { return true }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return false
            }
            #expect(try await printed(everything), "\(following.output)")
            let late = batch(1)
            _ = try await HouseholdFixtures.publish(late)
            let followed = try await printed(ids(late))
            #expect(followed, "\(following.output)")
        }

        /// Projections keep their offsets in Postgres and only record them for Kafka, which
        /// commits what was recorded every second: `hearthctl topics` must still show each
        /// group's committed offset catching up with what it applied.
        @Test func topicsShowsEachProjectionsCommittedOffsetCatchingUp() async throws {
            let household = UUID()
            let envelopes = (0..<5).map { HouseholdFixtures.event(id: household, version: $0 + 1) }
            try await ServiceProcess.with("gateway") { _ in
                let last = try #require(try await HouseholdFixtures.publish(envelopes).last)
                try await TestEnvironment.withPostgres { client in
                    let applied = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        try await HouseholdFixtures.projected([household], client: client).changes == 5
                    }
                    #expect(applied)
                }
                // Other tests write to the same partition meanwhile: at least this far, not exactly.
                let group = "hearth.projection.households"
                let seen = Mutex("nothing")
                let caughtUp = await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                    let result = try? await CommandLineTool.run(["topics", "--json"])
                    let output = (result?.output).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                    let entry = (output?["groups"] as? [[String: Any]])?.first {
                        $0["group"] as? String == group && $0["topic"] as? String == last.topic && $0["partition"] as? Int == Int(last.partition)
                    }
                    seen.withLock { $0 = String(describing: entry) }
                    return (entry?["committed"] as? Int).map { $0 > Int(last.offset) } == true && entry?["lag"] is Int
                }
                #expect(caughtUp, "\(group) on \(last.topic)/\(last.partition) should be past \(last.offset): \(seen.withLock { $0 })")
            }
        }

        /// What an operator gets wrong or finds down (an unknown topic is in the test above): one
        /// line on stderr naming it, a non-zero exit, no password, and no wait on a server that
        /// refuses the connection.
        @Test func errorsAreOneLineAndANonZeroExit() async throws {
            // Bound but not listening: a connection to it is refused, and nothing else takes the port.
            let closed = try LoopbackSocket(listening: false)
            defer { closed.close() }
            let database = "postgres://hearth:not-this-secret@127.0.0.1:\(closed.port)/hearth"
            let (user, password) = try #require(URLComponents(string: try TestEnvironment.databaseURL()).map { ($0.user, $0.password) })
            let wrongPassword = try TestEnvironment.databaseURL().replacingOccurrences(of: ":\(password ?? "")@", with: ":not-this-secret@")
            let cases: [(arguments: [String], says: String)] = [
                (["tail", "households", "--from", "yesterday"], "--from must be beginning, end or an RFC 3339 time"),
                (["replay", "no_such_projection"], "unknown projection no_such_projection"),
                (["trace", "anything", "--database-url", database], "cannot reach Postgres at postgres://hearth@127.0.0.1:\(closed.port)/hearth"),
                (["replay", "households", "--database-url", database], "cannot reach Postgres"),
                (["topics", "--kafka", "127.0.0.1:\(closed.port)"], "cannot reach Kafka at 127.0.0.1:\(closed.port)"),
                (["dlq", "list", "households", "--kafka", "127.0.0.1:\(closed.port)"], "cannot read households.dlq from Kafka"),
            ] + (password == nil ? [] : [
                (["trace", "anything", "--database-url", wrongPassword], "password authentication failed for user \"\(user ?? "")\""),
            ])
            for (arguments, says) in cases {
                let started = ContinuousClock.now
                let result = try await CommandLineTool.run(arguments)
                let lines = result.errors.split(separator: "\n")
                #expect(result.status != 0, "\(arguments)")
                #expect(lines.count == 1 && lines[0].contains(says), "\(arguments): \(result.errors)")
                #expect(!(result.output + result.errors).contains("not-this-secret"), "\(arguments)")
                if arguments.contains("--database-url") { #expect(ContinuousClock.now - started < .seconds(5), "\(arguments)") }
            }
        }

        /// A read model constraint stands in for a bug: the event is parked; once the "fix" is in
        /// (the constraint dropped), `dlq redrive` sends it back and it is projected.
        @Test func redriveReprojectsAParkedEventOnceItCanBeApplied() async throws {
            let blockedName = "blocked-\(UUID().uuidString.prefix(8).lowercased())"
            let constraint = "test_block_\(UUID().uuidString.prefix(8).lowercased())"
            let blocked = HouseholdFixtures.event(name: blockedName)
            try await TestEnvironment.withPostgres { client in
                try await client.query(PostgresQuery(unsafeSQL: "ALTER TABLE households ADD CONSTRAINT \(constraint) CHECK (name IS DISTINCT FROM '\(blockedName)') NOT VALID"))
                try await ServiceProcess.with("gateway", environment: ["HEARTH_PROJECTION_MAX_ATTEMPTS": "1"]) { _ in
                    _ = try await HouseholdFixtures.publish([blocked])
                    let parked = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                        let list = try await CommandLineTool.run(["dlq", "list", "households", "--json"])
                        return list.output.contains(blocked.metadata.id.uuidString.lowercased())
                    }
                    #expect(parked, "the blocked event is parked")
                    #expect(try await HouseholdFixtures.projected([blocked.data.householdId], client: client).rows == 0)

                    try await client.query(PostgresQuery(unsafeSQL: "ALTER TABLE households DROP CONSTRAINT \(constraint)"))
                    let redrive = try await CommandLineTool.run(["dlq", "redrive", "households", "--id", blocked.metadata.id.uuidString])
                    #expect(redrive.status == 0, "\(redrive.errors)")
                    #expect(redrive.output.contains("redriven households.dlq@"))
                    let projected = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                        try await HouseholdFixtures.projected([blocked.data.householdId], client: client).rows == 1
                    }
                    #expect(projected, "the redriven event is projected")
                }
            }
        }
    }
}
