import Foundation
import Testing

extension BackboneSuite {
    /// Feedback on a Hearth run is its owner's to give.
    @Suite struct FeedbackOwnership {
        @Test func feedbackOnAnotherUsersRunIsRefused() async throws {
            try await AssistStack.with { gateway, _ in
                let (owner, _) = try await GatewayUser.withHousehold(gateway)
                let (stranger, _) = try await GatewayUser.withHousehold(gateway)
                let (events, _) = try await AssistStack.run(gateway, user: owner, ["mode": "chores", "goal": "Share the chores"])
                let runId = events[0].runId
                _ = try await AssistStack.finishedRun(gateway, user: owner, runId: runId)
                let feedback = gateway.baseURL.appendingPathComponent("v1/feedback")
                let refused = try await HTTPTestClient.postJSON(feedback, ["run_id": runId, "signal": "down"], headers: stranger.headers)
                #expect(refused.status == 404)
                #expect(try await HTTPTestClient.postJSON(feedback, ["run_id": runId, "signal": "up"], headers: owner.headers).status == 202)
            }
        }
    }
}
