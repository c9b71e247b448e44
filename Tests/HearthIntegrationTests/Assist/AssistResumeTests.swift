import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import Testing

extension BackboneSuite {
    /// A client that resumes a run still in progress gets what it missed from the read model,
    /// then the rest live, with heartbeats while it waits. The run's events are published by
    /// the test itself (standing in for a slow model), so the run is guaranteed to be going.
    @Suite struct AssistResume {
        @Test func aResumedStreamCatchesUpThenContinuesLive() async throws {
            try await AssistStack.with(gateway: ["HEARTH_ASSIST_HEARTBEAT_S": "1"]) { gateway, _ in
                let user = try await GatewayUser.signIn(gateway)
                let userId = try #require(UUID(uuidString: user.userId))
                for wire in AssistWire.allCases {
                    let runId = UUID()
                    let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-assist-resume", lingerMs: 0)
                    let publisher = EventPublisher(producer: producer, source: "tests", keys: nil)
                    func event(_ seq: Int, _ name: String, _ data: JSONValue, elapsed: Int? = nil) -> AssistRunEvent {
                        AssistRunEvent(runId: runId, seq: seq, event: name, data: data, elapsedMs: elapsed)
                    }
                    let correlation = "resume-\(runId)"
                    try await publisher.publish(
                        AssistRunStarted(runId: runId, userId: userId, householdId: nil, mode: "meals", goal: "slow", days: 7, startDate: "2026-03-02"),
                        correlationId: correlation)
                    _ = try await publisher.publish(batch: [
                        publisher.envelope(event(1, "context", .object(["mode": .string("meals")])), correlationId: correlation),
                        publisher.envelope(event(2, "token", .string("Planning meals...")), correlationId: correlation),
                        publisher.envelope(event(3, "tool_call", .object(["name": .string("fetch_recipes")])), correlationId: correlation),
                    ])
                    // Until the read model knows the run, the replay route cannot vouch for its owner.
                    let runURL = gateway.baseURL.appendingPathComponent("v1/assist/runs/\(runId)")
                    let known = try await KafkaTestEnvironment.eventually(timeout: .seconds(10)) {
                        try await HTTPTestClient.send("GET", runURL, headers: user.headers).status == 200
                    }
                    #expect(known)

                    let url = gateway.baseURL.appendingPathComponent("v1/assist/runs/\(runId)/events")
                    let headers = user.headers(["Accept": wire.rawValue, "Last-Event-ID": "1"])
                    let resumed = Task { try await HTTPTestClient.send("GET", url, headers: headers) }
                    // Long enough for the resumed stream to be waiting live, and for heartbeats.
                    try await Task.sleep(for: .milliseconds(2500))
                    _ = try await publisher.publish(batch: [
                        publisher.envelope(event(4, "tool_result", .object(["count": .number(8)])), correlationId: correlation),
                        publisher.envelope(event(5, "final", .object(["plan_text": .string("Tacos on Tuesday")])), correlationId: correlation),
                        publisher.envelope(event(6, "done", .object(["elapsed_ms": .number(2600)]), elapsed: 2600), correlationId: correlation),
                    ])
                    await producer.close()

                    let reply = try await resumed.value
                    #expect(reply.status == 200)
                    let (events, heartbeats) = try wire.parse(reply.body)
                    #expect(events.map(\.seq) == [2, 3, 4, 5, 6], "\(wire)")
                    #expect(events.map(\.event) == ["token", "tool_call", "tool_result", "final", "done"])
                    #expect(events.last?.elapsedMs == 2600)
                    #expect(events.allSatisfy { $0.runId == runId.uuidString.lowercased() })
                    #expect(events[3].object["plan_text"] as? String == "Tacos on Tuesday")
                    if wire == .sse { #expect(heartbeats >= 1, "an idle SSE stream gets heartbeats") }
                }
            }
        }
    }
}
