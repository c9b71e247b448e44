import HearthAssist
import Testing

@Suite struct InMemoryBudgetLedgerTests {
    @Test func fiftyConcurrentReservationsNeverOverrun() async throws {
        let ledger = InMemoryBudgetLedger()
        let scope = BudgetScope(key: "shared", limitCents: 10, limitTokens: 2000)
        let reservations = try await withThrowingTaskGroup(of: BudgetReservation?.self) { group in
            for _ in 0..<50 {
                group.addTask { await ledger.reserve(scope, cents: 1, tokens: 100) }
            }
            return try await group.reduce(into: [BudgetReservation]()) { if let r = $1 { $0.append(r) } }
        }
        #expect(reservations.count == 10)
        let held = try #require(await ledger.usage(of: "shared"))
        #expect(held.reservedCents == 10)
        #expect(held.reservedTokens == 1000)

        // Settling below the reservation frees the difference for later calls.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reservation in reservations { group.addTask { await ledger.settle(reservation, cents: 0.5, tokens: 40) } }
            try await group.waitForAll()
        }
        let settled = try #require(await ledger.usage(of: "shared"))
        #expect(settled.reservedCents == 0)
        #expect(settled.spentCents == 5)
        #expect(settled.spentTokens == 400)
        #expect(await ledger.reserve(scope, cents: 5, tokens: 100) != nil)
        #expect(await ledger.reserve(scope, cents: 0.01, tokens: 1) == nil)
    }

    @Test func theTokenLimitBindsToo() async throws {
        let ledger = InMemoryBudgetLedger()
        let scope = BudgetScope(key: "tokens")
        #expect(scope.limitCents == 10)
        #expect(scope.limitTokens == 2000)
        #expect(await ledger.reserve(scope, cents: 0, tokens: 1500) != nil)
        #expect(await ledger.reserve(scope, cents: 0, tokens: 501) == nil)
        #expect(await ledger.reserve(scope, cents: 0, tokens: 500) != nil)
    }

    @Test func settlingTwiceChangesNothing() async throws {
        let ledger = InMemoryBudgetLedger()
        let scope = BudgetScope(key: "twice")
        let reservation = try #require(await ledger.reserve(scope, cents: 4, tokens: 400))
        await ledger.settle(reservation, cents: 3, tokens: 300)
        await ledger.settle(reservation, cents: 3, tokens: 300)
        let usage = try #require(await ledger.usage(of: "twice"))
        #expect(usage.spentCents == 3)
        #expect(usage.spentTokens == 300)
        #expect(usage.reservedCents == 0)
    }

    @Test func settlingAboveTheReservationRecordsTheTruth() async throws {
        let ledger = InMemoryBudgetLedger()
        let scope = BudgetScope(key: "over", limitCents: 2)
        let reservation = try #require(await ledger.reserve(scope, cents: 1, tokens: 10))
        await ledger.settle(reservation, cents: 2.5, tokens: 20)
        #expect(await ledger.usage(of: "over")?.spentCents == 2.5)
        #expect(await ledger.reserve(scope, cents: 0.01, tokens: 1) == nil)
    }

    @Test func aReservationLargerThanTheLimitNeverFits() async throws {
        let ledger = InMemoryBudgetLedger()
        #expect(await ledger.reserve(BudgetScope(key: "big", limitCents: 1), cents: 1.5, tokens: 1) == nil)
        #expect(await ledger.usage(of: "big")?.reservedCents ?? 0 == 0)
    }

    @Test func fractionalCentsThatAddUpToTheLimitFit() async throws {
        let ledger = InMemoryBudgetLedger()
        let scope = BudgetScope(key: "fractions", limitCents: 0.3)
        #expect(await ledger.reserve(scope, cents: 0.1, tokens: 1) != nil)
        #expect(await ledger.reserve(scope, cents: 0.2, tokens: 1) != nil)
        #expect(await ledger.reserve(scope, cents: 0.01, tokens: 1) == nil)
    }
}
