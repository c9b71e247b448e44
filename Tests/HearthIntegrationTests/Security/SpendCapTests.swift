import Foundation
import PostgresNIO
import Testing

extension BackboneSuite {
    /// A paid model chain with a per-user monthly spend cap: once a user's month has spent the
    /// cap, their metered calls are skipped (the chain falls through to the offline model) while
    /// other users still reach the provider.
    @Suite struct SpendCap {
        @Test func aUserOverTheMonthsCapIsAnsweredOfflineAndOthersStillReachTheModel() async throws {
            // The fake provider reports a huge prompt: each call costs 60 cents at gpt-4o-mini's
            // bundled price (0.015 cents per 1k input tokens), past the 50-cent cap at once.
            let server = FakeModelServer(["/v1/chat/completions": [
                .stream(ModelWire.openAIToolCall(
                    name: "set_reminder", arguments: #"{"title":"Water the plants","at":"2031-05-04T09:30","member":null}"#,
                    prompt: 4_000_000, completion: 10)),
            ]])
            try await server.serve { base, _ in
                let orchestrator = [
                    "HEARTH_MODEL_CHAIN_PLANNING": "openai:gpt-4o-mini", "HEARTH_OPENAI_API_KEY": "sk-test-cap", "HEARTH_OPENAI_BASE_URL": base,
                    "HEARTH_USER_MONTHLY_SPEND_CENTS": "50",
                ]
                try await AssistStack.with(orchestrator: orchestrator) { gateway, _ in
                    let (spender, _) = try await GatewayUser.withHousehold(gateway, name: "The Spenders")
                    let (other, _) = try await GatewayUser.withHousehold(gateway, name: "The Others")
                    let spending = Assistant.Session(gateway: gateway, user: spender)

                    let first = try await spending.ask("Remind me to water the plants on Sunday morning")
                    #expect(try #require(first.first { $0.event == "final" }?.object)["intents_read_by"] as? String == "openai:gpt-4o-mini")
                    #expect(await server.requests(to: "/v1/chat/completions").count == 1)
                    let month = try await Self.monthSpent(spender.userId)
                    #expect(month >= 60, "the call's real cost is charged to the month: \(month)")

                    // Over the cap: the model is not called, the offline rules answer.
                    let second = try await spending.ask("Remind me to water the plants on Sunday morning")
                    let offline = try #require(second.first { $0.event == "final" }?.object)
                    #expect(offline["intents_read_by"] as? String != "openai:gpt-4o-mini", "\(offline)")
                    #expect(await server.requests(to: "/v1/chat/completions").count == 1, "no call past the cap")
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.capSkips(spender.userId) >= 1 }, "recorded as skipped for the cap")
                    #expect(try await Self.monthSpent(spender.userId) == month, "nothing more spent")

                    // The cap is the spender's: another user's call goes to the model.
                    let theirs = try await Assistant.Session(gateway: gateway, user: other).ask("Remind me to water the plants on Sunday morning")
                    #expect(try #require(theirs.first { $0.event == "final" }?.object)["intents_read_by"] as? String == "openai:gpt-4o-mini")
                    #expect(await server.requests(to: "/v1/chat/completions").count == 2)
                }
            }
        }

        /// What the user's ledger of this month has spent, in cents.
        @Sendable static func monthSpent(_ user: String) async throws -> Double {
            try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    "SELECT COALESCE(sum(spent_cents), 0)::float8 FROM run_budgets WHERE key LIKE 'user-month:' || \(user) || ':%'",
                    logger: TestEnvironment.logger)
                return try await rows.collect().first?.decode(Double.self) ?? 0
            }
        }

        /// The user's model attempts skipped because of the monthly cap.
        @Sendable static func capSkips(_ user: String) async throws -> Int {
            try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    """
                    SELECT count(*)::int FROM run_metrics m JOIN agent_runs r ON r.run_id = m.run_id
                    WHERE r.user_id::text = \(user) AND m.outcome = 'skipped_monthly spend cap'
                    """, logger: TestEnvironment.logger)
                return try await rows.collect().first?.decode(Int.self) ?? 0
            }
        }
    }
}
