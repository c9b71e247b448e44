import Foundation
import HearthAssist
import Testing

@Suite struct ModelRouterTests {
    let calls = CallLog()

    func router(_ chain: [any ModelProvider], ledger: any BudgetLedger = InMemoryBudgetLedger()) -> ModelRouter {
        ModelRouter(chains: [.synthesis: chain, .planning: chain], prices: AssistFixtures.prices, ledger: ledger, logger: AssistFixtures.logger)
    }

    @Test func fallsBackInChainOrderAndRecordsEveryAttempt() async throws {
        let router = router([
            ScriptedProvider("a", "m", .fail(.server), calls: calls),
            ScriptedProvider("b", "m", .fail(.rateLimited), calls: calls),
            ScriptedProvider("c", "m", .answer("from c", input: 100, output: 20), calls: calls),
            LocalModelProvider(),
        ])
        let sink = TokenSink()
        let response = try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "r1"), onToken: sink.onToken)
        #expect(calls.all == ["a:m", "b:m", "c:m"])
        #expect(response.text == "from c")
        #expect(sink.text == "from c")
        #expect(response.provider == "c")
        #expect(response.model == "m")
        #expect(response.inputTokens == 100)
        #expect(response.outputTokens == 20)
        // 100 × 1¢/1K + 20 × 10¢/1K
        #expect(abs(response.costCents - 0.3) < 1e-9)
        #expect(response.attempts.map(\.provider) == ["a", "b", "c"])
        #expect(response.attempts[0].outcome.hasPrefix("error: a server error 500"))
        #expect(response.attempts[1].outcome.hasPrefix("error: b rate limited"))
        #expect(response.attempts[2].outcome == "ok")
        #expect(response.attempts[0].costCents == 0)
    }

    @Test func nulCharactersAreDroppedFromStreamedAndFinalText() async throws {
        let router = router([ScriptedProvider("a", "m", .answer("Soup\u{0} on\u{0}\u{0} Monday", input: 1, output: 3), calls: calls)])
        let sink = TokenSink()
        let response = try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "nul"), onToken: sink.onToken)
        #expect(response.text == "Soup on Monday")
        #expect(sink.text == "Soup on Monday")
    }

    @Test func usesEachPhasesOwnChain() async throws {
        let router = ModelRouter(
            chains: [
                .planning: [ScriptedProvider("a", "m", .answer("plan", input: 1, output: 1), calls: calls)],
                .synthesis: [ScriptedProvider("b", "m", .answer("prose", input: 1, output: 1), calls: calls)],
            ],
            prices: AssistFixtures.prices, ledger: InMemoryBudgetLedger(), logger: AssistFixtures.logger)
        let plan = try await router.complete(AssistFixtures.request(.planning), budget: BudgetScope(key: "r"), onToken: { _ in })
        let prose = try await router.complete(AssistFixtures.request(.synthesis), budget: BudgetScope(key: "r"), onToken: { _ in })
        #expect(plan.text == "plan")
        #expect(prose.text == "prose")
        #expect(router.chainDescription == [.planning: ["a:m"], .synthesis: ["b:m"]])
    }

    @Test func skipsAProviderWhoseWorstCaseExceedsTheBudget() async throws {
        let ledger = InMemoryBudgetLedger()
        let router = router([ScriptedProvider("a", "m", .answer("expensive", input: 100, output: 100), calls: calls), LocalModelProvider()], ledger: ledger)
        // Worst case: 100 prompt tokens (400 chars) at 1¢/1K + 100 output at 10¢/1K = 1.1¢ > 1¢.
        let sink = TokenSink()
        let response = try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "tight", limitCents: 1), onToken: sink.onToken)
        #expect(calls.all.isEmpty)
        #expect(response.provider == "local")
        #expect(response.model == "offline-v1")
        #expect(response.text == "The offline plan for this week.")
        #expect(sink.text == response.text)
        #expect(response.costCents == 0)
        #expect(response.attempts.map(\.outcome) == ["skipped: budget", "ok"])
        #expect(await ledger.usage(of: "tight") == nil)
    }

    @Test func theTokenLimitAlsoSkips() async throws {
        let router = router([ScriptedProvider("a", "m", .answer("x", input: 1, output: 1), calls: calls), LocalModelProvider()])
        let response = try await router.complete(
            AssistFixtures.request(maxOutputTokens: 1950), budget: BudgetScope(key: "t"), onToken: { _ in })
        // 100 prompt + 1950 output > 2000 tokens.
        #expect(response.attempts.first?.outcome == "skipped: budget")
        #expect(response.provider == "local")
    }

    @Test func settlesTheReservationToTheReportedUsage() async throws {
        let ledger = InMemoryBudgetLedger()
        let router = router([ScriptedProvider("a", "m", .answer("ok", input: 120, output: 30), calls: calls)], ledger: ledger)
        _ = try await router.complete(AssistFixtures.request(maxOutputTokens: 200), budget: BudgetScope(key: "s"), onToken: { _ in })
        let usage = try #require(await ledger.usage(of: "s"))
        // Reserved 100 + 200 tokens / 2.1¢; settled to 150 tokens / 0.42¢.
        #expect(usage.reservedCents == 0)
        #expect(usage.reservedTokens == 0)
        #expect(usage.spentTokens == 150)
        #expect(abs(usage.spentCents - 0.42) < 1e-9)

        // Later calls reserve against what was spent (0.42¢), not what the first one held (2.1¢).
        for _ in 0..<3 {
            _ = try await router.complete(AssistFixtures.request(maxOutputTokens: 200), budget: BudgetScope(key: "s"), onToken: { _ in })
        }
        let after = try #require(await ledger.usage(of: "s"))
        #expect(after.spentTokens == 600)
        #expect(abs(after.spentCents - 1.68) < 1e-9)
    }

    @Test func aFailedCallReleasesItsReservationAndChargesPartialUsage() async throws {
        let ledger = InMemoryBudgetLedger()
        let router = router([
            ScriptedProvider("a", "m", .fail(.server), calls: calls),
            ScriptedProvider("b", "m", .answer("ok", input: 100, output: 10), calls: calls),
        ], ledger: ledger)
        let response = try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "f"), onToken: { _ in })
        #expect(response.provider == "b")
        let usage = try #require(await ledger.usage(of: "f"))
        #expect(usage.reservedCents == 0)
        #expect(usage.spentTokens == 110)
    }

    @Test func doesNotFallBackOnceTextWasStreamed() async throws {
        let router = router([
            ScriptedProvider("a", "m", .streamThenFail("Monday: "), calls: calls),
            ScriptedProvider("b", "m", .answer("whole answer", input: 1, output: 1), calls: calls),
        ])
        let sink = TokenSink()
        await #expect {
            try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "i"), onToken: sink.onToken)
        } throws: { error in
            guard case ModelRouterError.interrupted(_, let attempts, let partial) = error else { return false }
            return partial == "Monday: " && attempts.count == 1 && attempts[0].outputTokens == 2 && attempts[0].outcome.hasPrefix("error:")
        }
        #expect(calls.all == ["a:m"])
        #expect(sink.text == "Monday: ")
    }

    @Test func exhaustedChainThrowsWithTheAttempts() async throws {
        let router = router([ScriptedProvider("a", "m", .fail(.rejected), calls: calls), ScriptedProvider("b", "m", .fail(.timeout), calls: calls)])
        await #expect {
            try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "e"), onToken: { _ in })
        } throws: { error in
            (error as? ModelRouterError)?.attempts.map(\.provider) == ["a", "b"]
        }
    }

    @Test func aModelWithoutAPriceIsNotCalled() async throws {
        let router = router([ScriptedProvider("x", "unpriced", .answer("x", input: 1, output: 1), calls: calls), LocalModelProvider()])
        let response = try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "p"), onToken: { _ in })
        #expect(calls.all.isEmpty)
        #expect(response.attempts[0].outcome == "error: no price configured for x:unpriced")
        #expect(response.provider == "local")
    }

    @Test func anUnavailableLedgerFailsClosedForMeteredProviders() async throws {
        let router = router([ScriptedProvider("a", "m", .answer("x", input: 1, output: 1), calls: calls), LocalModelProvider()], ledger: UnavailableLedger())
        let response = try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "u"), onToken: { _ in })
        #expect(calls.all.isEmpty)
        #expect(response.attempts[0].outcome.hasPrefix("error: budget ledger unavailable"))
        #expect(response.provider == "local")
    }

    @Test func anEmptyChainIsAnError() async throws {
        let router = ModelRouter(chains: [:], prices: AssistFixtures.prices, ledger: InMemoryBudgetLedger(), logger: AssistFixtures.logger)
        await #expect(throws: ModelRouterError.self) {
            try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "n"), onToken: { _ in })
        }
    }

    @Test func cancellationStopsWithoutFallingBack() async throws {
        let ledger = InMemoryBudgetLedger()
        let router = router([ScriptedProvider("a", "m", .waitForCancellation, calls: calls), LocalModelProvider()], ledger: ledger)
        let task = Task { try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "c"), onToken: { _ in }) }
        while calls.all.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The reservation was still released.
        #expect(await ledger.usage(of: "c")?.reservedCents == 0)
    }

    @Test func fiftyConcurrentRunsNeverOverrunASharedBudget() async throws {
        let ledger = InMemoryBudgetLedger()
        let router = router([ScriptedProvider("a", "m", .answer("paid", input: 100, output: 100), calls: calls), LocalModelProvider()], ledger: ledger)
        // Each call's worst case is 1.1¢ (see above) and it spends exactly that: 11¢ fit 10 calls.
        let scope = BudgetScope(key: "household-month", limitCents: 11, limitTokens: 100_000)
        let providers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask { try await router.complete(AssistFixtures.request(), budget: scope, onToken: { _ in }).provider }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(providers.filter { $0 == "a" }.count == 10)
        #expect(providers.filter { $0 == "local" }.count == 40)
        let usage = try #require(await ledger.usage(of: scope.key))
        #expect(usage.spentCents <= scope.limitCents + 1e-9)
        #expect(usage.reservedCents == 0)
    }

    /// A user's monthly cap spans their runs: each run has budget left, the month does not. The
    /// calls it cannot hold are skipped and the chain falls through; what was held for a skipped
    /// call is released from the month.
    @Test func aMonthlySpendCapAcrossRunsSkipsOnceTheMonthIsSpent() async throws {
        let ledger = InMemoryBudgetLedger()
        let router = router([ScriptedProvider("a", "m", .answer("paid", input: 100, output: 100), calls: calls), LocalModelProvider()], ledger: ledger)
        // Each call's worst case and spend is 1.1¢ (see above): a 3¢ month holds two.
        let cap = SpendCap.monthly(user: "user-1", limitCents: 3, at: Date(timeIntervalSince1970: 1_790_000_000))
        #expect(cap.key == "user-month:user-1:2026-09")
        var providers: [String] = []
        var outcomes: [[String]] = []
        for run in 0..<4 {
            let response = try await router.complete(AssistFixtures.request(), budget: BudgetScope(key: "run-\(run)", cap: cap), onToken: { _ in })
            providers.append(response.provider)
            outcomes.append(response.attempts.map(\.outcome))
        }
        #expect(providers == ["a", "a", "local", "local"])
        #expect(outcomes[2] == ["skipped: monthly spend cap", "ok"])
        let month = try #require(await ledger.usage(of: cap.key))
        #expect(abs(month.spentCents - 2.2) < 1e-9 && month.reservedCents == 0)
        #expect(await ledger.usage(of: "run-2") == nil, "a run skipped by the month held nothing of its own")
        // A run whose own budget is short releases what it held of the month.
        let tight = try await router.complete(
            AssistFixtures.request(), budget: BudgetScope(key: "tight-run", limitCents: 1, cap: SpendCap(key: "roomy-month", limitCents: 100)),
            onToken: { _ in })
        #expect(tight.attempts.first?.outcome == "skipped: budget")
        #expect(await ledger.usage(of: "roomy-month")?.reservedCents == 0)
        #expect(await ledger.usage(of: "roomy-month")?.spentCents == 0)
    }
}
