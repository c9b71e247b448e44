import Foundation
import PostgresNIO
import Testing

extension BackboneSuite {
    /// `HEARTH_RUN_RETENTION_DAYS`: a run older than that loses what it said (its key destroyed,
    /// its goal, plan and stream dropped), keeps its counts, and a replay does not bring it back.
    @Suite struct RunRetention {
        @Test func aRunPastRetentionLosesItsContentLiveAndInAReplay() async throws {
            // About two seconds.
            let retention = ["HEARTH_RUN_RETENTION_DAYS": "0.00003", "HEARTH_RETENTION_CHECK_SECONDS": "1"]
            let goal = "Easy dinners for the retention test \(UUID().uuidString.prefix(8))"
            let runId = try await AssistStack.with(orchestrator: retention) { gateway, _ in
                let (user, _) = try await GatewayUser.withHousehold(gateway)
                let (events, _) = try await AssistStack.run(gateway, user: user, ["mode": "meals", "goal": goal, "days": 3])
                let runId = events[0].runId
                let finished = try await AssistStack.finishedRun(gateway, user: user, runId: runId)
                #expect(finished["state"] as? String == "succeeded")
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { try await Self.expired(runId) }, "the run expires")
                let run = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assist/runs/\(runId)"), headers: user.headers)
                #expect(run.status == 200)
                #expect(!String(decoding: run.body, as: UTF8.self).contains(goal))
                #expect(run.json["state"] as? String == "succeeded", "the run itself stays")
                return runId
            }
            let content = try await Self.content(of: runId)
            // One key for the run, made by the gateway with the request and sealing the
            // orchestrator's events too (a second would have outlived the expiry), destroyed.
            #expect(content == .init(goal: "", events: 0, keys: 1, keyDestroyed: true))
            let replay = try await CommandLineTool.run(["replay", "assist_runs"])
            #expect(replay.status == 0, "\(replay.output)\n\(replay.errors)")
            #expect(try await Self.content(of: runId) == content, "a replay gives the same")
        }

        struct Content: Equatable {
            var goal: String
            var events: Int
            var keys: Int
            var keyDestroyed: Bool
        }

        static func content(of run: String) async throws -> Content {
            try await TestEnvironment.withPostgres { client in
                let goal = try await client.query("SELECT goal FROM agent_runs WHERE run_id::text = \(run)", logger: TestEnvironment.logger)
                    .collect().first?.decode(String.self) ?? "missing"
                let events = try await client.query("SELECT count(*)::int FROM assist_run_events WHERE run_id::text = \(run)", logger: TestEnvironment.logger)
                    .collect().first?.decode(Int.self) ?? -1
                let keys = try await client.query(
                    "SELECT count(*)::int, count(*) FILTER (WHERE wrapped IS NULL)::int FROM data_keys WHERE subject = \("run:\(run)")",
                    logger: TestEnvironment.logger
                ).collect().first?.decode((Int, Int).self) ?? (0, 0)
                return Content(goal: goal, events: events, keys: keys.0, keyDestroyed: keys.1 == 1)
            }
        }

        static func expired(_ run: String) async throws -> Bool {
            try await TestEnvironment.withPostgres { client in
                try await client.query("SELECT content_expired FROM agent_runs WHERE run_id::text = \(run)", logger: TestEnvironment.logger)
                    .collect().first?.decode(Bool.self) ?? false
            }
        }
    }
}
