import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// PII never reaches storage or logs, and a request is run once however often it is delivered.
    @Suite struct AssistSafety {
        static let email = "jo.okafor.\(UUID().uuidString.prefix(6).lowercased())@example.com"
        static let phone = "(415) 555-0134"
        static let street = "42 Juniper Street"

        @Test func piiIsRedactedInStoredRunsEventsAndLogs() async throws {
            let goal = "Plan dinners for us, reach me at \(Self.email) or \(Self.phone), we live at \(Self.street)"
            var runId = ""
            var logs: [URL] = []
            try await AssistStack.with { gateway, orchestrator in
                logs = [gateway.logFile, orchestrator.logFile]
                let user = try await GatewayUser.signIn(gateway)
                let (events, _) = try await AssistStack.run(gateway, user: user, ["goal": goal, "mode": "meals"], wire: .ndjson)
                _ = try expectWellFormedStream(events, terminal: "final", wire: .ndjson)
                runId = events[0].runId
                for event in events {
                    #expect(!Self.containsPII(event.text), "stream event \(event.seq) carries PII: \(event.text)")
                }
                let run = try await AssistStack.finishedRun(gateway, user: user, runId: runId)
                let stored = try #require(run["goal"] as? String)
                #expect(!Self.containsPII(stored), "\(stored)")
                #expect(stored.contains("[email]") && stored.contains("[phone]") && stored.contains("[address]"), "\(stored)")
                #expect(stored.hasPrefix("Plan dinners for us"))

                // The event archive holds every event of every topic, raw: the request included.
                let key = runId
                let archived = try await KafkaTestEnvironment.eventually {
                    try await TestEnvironment.withPostgres { client in
                        try await Self.count("SELECT count(*)::int8 FROM event_log WHERE key = \(key)", client) >= 3
                    }
                }
                #expect(archived)
                try await TestEnvironment.withPostgres { client in
                    let leaks = try await Self.count(
                        "SELECT count(*)::int8 FROM event_log WHERE envelope::text LIKE \("%" + Self.email + "%") OR envelope::text LIKE '%555-0134%' OR envelope::text LIKE '%Juniper%'",
                        client)
                    #expect(leaks == 0, "the archive holds the raw goal")
                    let storedEvents = try await Self.count(
                        "SELECT count(*)::int8 FROM assist_run_events WHERE run_id = \(UUID(uuidString: runId)!) AND (data::text LIKE '%example.com%' OR data::text LIKE '%555-0134%' OR data::text LIKE '%Juniper%')",
                        client)
                    #expect(storedEvents == 0)
                }
            }
            // Both services have stopped (logs flushed): neither wrote the raw details.
            for log in logs {
                let text = try String(contentsOf: log, encoding: .utf8)
                #expect(text.contains(runId) || log.lastPathComponent.contains("gateway"), "\(log.lastPathComponent) logged the run")
                #expect(!Self.containsPII(text), "\(log.lastPathComponent) contains PII")
            }
        }

        static func containsPII(_ text: String) -> Bool {
            text.contains(email) || text.contains("555-0134") || text.contains("Juniper")
        }

        static func count(_ query: PostgresQuery, _ client: PostgresClient) async throws -> Int {
            for try await value in try await client.query(query, logger: TestEnvironment.logger).decode(Int64.self) { return Int(value) }
            return 0
        }

        @Test func aRedeliveredRequestDoesNotStartASecondRun() async throws {
            try await ServiceProcess.with("assist-orchestrator") { orchestrator in
                let runId = UUID()
                let request = AssistRequested(
                    runId: runId, userId: UUID(), householdId: nil, mode: "routines", goal: "Bedtime", days: 7, startDate: "2026-03-02",
                    prefs: HouseholdPrefs(adults: 1, kidsAges: [5], allergies: [], cuisines: []), members: [])
                let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-assist")
                let publisher = EventPublisher(producer: producer, source: "tests", keys: nil)
                let envelope = publisher.envelope(request, correlationId: "redelivery-\(runId)")
                // The same message twice: what Kafka does after a rebalance or a restart.
                _ = try await publisher.publish(batch: [envelope, envelope])
                await producer.close()

                let finished = try await KafkaTestEnvironment.eventually {
                    try await TestEnvironment.withPostgres { client in
                        try await Self.count("SELECT count(*)::int8 FROM agent_runs WHERE run_id = \(runId) AND state = 'succeeded'", client) == 1
                    }
                }
                #expect(finished)
                let key = runId.uuidString.lowercased()
                let logFile = orchestrator.logFile
                let skipped = await KafkaTestEnvironment.eventually {
                    ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").contains("already claimed run_id=\(key)")
                }
                #expect(skipped, "the second delivery is recognised")
                // "run finished" is logged once Kafka acknowledged the run's last event, which can
                // be after a consumer (the agent_runs projection) has already read it.
                let logged = await KafkaTestEnvironment.eventually {
                    ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").split(separator: "\n")
                        .contains { $0.contains("run finished") && $0.contains(key) }
                }
                #expect(logged)
                let log = try String(contentsOf: orchestrator.logFile, encoding: .utf8)
                #expect(log.split(separator: "\n").filter { $0.contains("run finished") && $0.contains(key) }.count == 1, "one run, not two")
                let (claims, dones) = try await TestEnvironment.withPostgres { client in
                    (try await Self.count("SELECT count(*)::int8 FROM assist_run_claims WHERE run_id = \(runId)", client),
                     try await Self.count("SELECT count(*)::int8 FROM assist_run_events WHERE run_id = \(runId) AND event = 'done'", client))
                }
                #expect(claims == 1)
                #expect(dones == 1)
            }
        }
    }
}
