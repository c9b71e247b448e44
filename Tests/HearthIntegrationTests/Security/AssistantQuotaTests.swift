import Foundation
import Testing

extension BackboneSuite {
    /// Assistant messages are model runs: they count in the monthly quota with plans.
    @Suite struct AssistantQuota {
        @Test func assistantMessagesCountInTheMonthlyQuota() async throws {
            try await AssistStack.with(gateway: ["HEARTH_MONTHLY_QUOTA": "2"]) { gateway, _ in
                let (user, _) = try await GatewayUser.withHousehold(gateway)
                let messages = gateway.baseURL.appendingPathComponent("v1/assistant/messages")
                // One plan and one message use the two runs of the month.
                let (events, _) = try await AssistStack.run(gateway, user: user, ["mode": "chores", "goal": "Share the chores"])
                #expect(events.contains { $0.event == "final" })
                let first = try await HTTPTestClient.postJSON(messages, ["text": "What is for dinner?"], headers: user.headers)
                #expect(first.status == 200)
                let second = try await HTTPTestClient.postJSON(messages, ["text": "And tomorrow?"], headers: user.headers)
                #expect(second.status == 429)
                #expect((second.json["error"] as? [String: Any])?["code"] as? String == "quota_exceeded")
                #expect(Int(second.headers["Retry-After"] ?? "") ?? 0 > 0)
            }
        }
    }
}
