import Foundation
import Testing

extension BackboneSuite {
    /// What an operator sees of one assist run: `hearthctl trace <run id>` walks request → run
    /// events → projections, and the orchestrator's `/metrics` counts the model calls it made.
    @Suite struct AssistRunTrace {
        @Test func traceOfOneRunShowsRequestRunEventsAndProjections() async throws {
            try await AssistStack.with { gateway, orchestrator in
                let user = try await AssistFlow.family(gateway)
                let (events, _) = try await AssistStack.run(
                    gateway, user: user, ["goal": "Quick dinners", "mode": "meals", "days": 3, "start_date": "2026-05-04"], wire: .ndjson)
                let runId = try #require(events.first?.runId)
                _ = try await AssistStack.finishedRun(gateway, user: user, runId: runId)

                // The archive and the runs projection catch up on their own schedule.
                var trace: [[String: Any]] = []
                var complete = false
                let deadline = ContinuousClock.now + .seconds(20)
                while !complete && ContinuousClock.now < deadline {
                    let result = try await CommandLineTool.run(["trace", runId, "--json"])
                    if result.status == 0 {
                        trace = (try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]) ?? []
                        let completed = trace.first { $0["type"] as? String == "assist.run_completed" }
                        complete = ((completed?["projected_by"] as? [String]) ?? []).contains("assist_runs")
                    }
                    if !complete { try await Task.sleep(for: .milliseconds(300)) }
                }
                #expect(complete, "\(trace)")
                let types = trace.compactMap { $0["type"] as? String }
                #expect(types.first == "assist.requested", "\(types)")
                #expect(types.contains("assist.run_started") && types.contains("assist.run_event") && types.contains("assist.run_completed"),
                        "\(types)")
                // One causal chain: every run event was caused by the request.
                let requestId = trace.first?["id"] as? String
                let caused = trace.dropFirst().filter { $0["causation_id"] as? String == requestId }
                #expect(!caused.isEmpty && caused.count == trace.count - 1, "\(trace.map { ($0["type"] ?? "", $0["causation_id"] ?? "") })")
                let started = trace.first { $0["type"] as? String == "assist.run_started" }
                let projectedBy = started?["projected_by"] as? [String] ?? []
                #expect(projectedBy.contains("assist_runs"))

                let tree = try await CommandLineTool.run(["trace", runId])
                #expect(tree.status == 0)
                let lines = tree.output.split(separator: "\n")
                #expect(lines.contains { $0.hasPrefix("assist.requested v1") })
                #expect(lines.contains { $0.hasPrefix("   └─ assist.run_started v1") && $0.contains("+") })
                #expect(lines.contains { $0.contains("⇢ projected by") && $0.contains("assist_runs") })

                // `--timings`: every event in the order it happened, each hop's delay and who took it.
                let timings = try await CommandLineTool.run(["trace", runId, "--timings"])
                #expect(timings.status == 0, "\(timings.output)")
                let rows = timings.output.split(separator: "\n").map(String.init)
                #expect(rows.first?.hasPrefix("\(trace.count) events;") == true, "\(rows.prefix(3))")
                let requestRow = try #require(rows.first { $0.contains(" assist.requested ") }, "\(rows)")
                #expect(requestRow.hasPrefix("     0.0") && requestRow.contains("gateway") && requestRow.hasSuffix("published"), "\(requestRow)")
                let startRow = try #require(rows.first { $0.contains(" assist.run_started ") }, "\(rows)")
                #expect(startRow.contains("gateway → Kafka → assist-orchestrator (publish, fetch, claim, work)"), "\(startRow)")
                #expect(rows.contains { $0.contains("assist.run_event done") && $0.contains("run at ") }, "\(rows)")
                // Without track_commit_timestamp (the tests' Postgres) the archive column is empty.
                #expect(startRow.contains(" — "), "\(startRow)")
                let total = try #require(rows.last, "\(rows)")
                let lastType = try #require(timingsLastType(rows), "\(rows)")
                #expect(total.hasPrefix("total ") && total.hasSuffix("from assist.requested to \(lastType)"), "\(total)")

                let (status, body) = try await HTTPTestClient.get(orchestrator.baseURL.appendingPathComponent("metrics"))
                #expect(status == 200)
                let text = String(decoding: body, as: UTF8.self)
                for family in ["hearth_model_calls_total", "hearth_model_tokens_total", "hearth_model_cost_cents_total"] {
                    #expect(text.contains("# TYPE \(family) "), "missing \(family)")
                }
                #expect(text.contains(#"hearth_model_calls_total{"#) && text.contains(#"provider="local""#))
            }
        }
    }
}

/// The event type of the last event row of `hearthctl trace --timings` (the row before the total).
private func timingsLastType(_ rows: [String]) -> String? {
    guard rows.count >= 2 else { return nil }
    return rows[rows.count - 2].split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.map(String.init)
}
