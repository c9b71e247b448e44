import Foundation
import HearthAssist
import HearthCtlCommands
import HearthStore
import Logging
import PostgresNIO
import Synchronization
import Testing

extension BackboneSuite {
    /// PostgresBudgetLedger against the real database: reservation is one atomic statement, so
    /// concurrent runs never hold or spend more than the budget.
    @Suite struct ModelRouterBudgetLedgerTests {
        static func migrate(_ client: PostgresClient) async throws {
            // The orchestrator's own migration creates the ledger's tables (IF NOT EXISTS).
            let ledger = try ReadModelCatalogue.migrations(of: .assistOrchestrator).filter { $0.sql.contains("run_budgets") }
            #expect(ledger.count == 1)
            for migration in ledger {
                for statement in SQLScript.statements(migration.sql) {
                    try await client.query(PostgresQuery(unsafeSQL: statement), logger: TestEnvironment.logger)
                }
            }
        }

        /// A pool wide enough that the reservations really race in Postgres rather than queue
        /// for a connection.
        static func withWidePostgres<T: Sendable>(_ body: (PostgresClient) async throws -> T) async throws -> T {
            let configuration = try DatabaseConfiguration(url: TestEnvironment.databaseURL(), maximumConnections: 25)
            let client = PostgresClient(configuration: configuration.client, backgroundLogger: TestEnvironment.logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                return try await body(client)
            }
        }

        /// Polls the budget while `work` runs and records the largest spent + reserved seen.
        static func watchingPeak(_ ledger: PostgresBudgetLedger, key: String, while work: () async throws -> Void) async throws -> Double {
            let peak = Shared(0.0)
            let done = Shared(false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !done.value {
                        if let usage = try await ledger.usage(of: key) {
                            peak.update { $0 = max($0, usage.spentCents + usage.reservedCents) }
                        }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
                try await work()
                done.update { $0 = true }
                try await group.waitForAll()
            }
            return peak.value
        }

        @Test func fiftyConcurrentReservationsAgainstABudgetThatFitsTen() async throws {
            try await Self.withWidePostgres { client in
                try await Self.migrate(client)
                let ledger = PostgresBudgetLedger(client: client, logger: TestEnvironment.logger)
                let scope = BudgetScope(key: "it-\(UUID())", limitCents: 10, limitTokens: 1_000_000)
                let granted = Shared([BudgetReservation]())
                let peak = try await Self.watchingPeak(ledger, key: scope.key) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<50 {
                            group.addTask {
                                if let reservation = try await ledger.reserve(scope, cents: 1, tokens: 10) {
                                    granted.update { $0.append(reservation) }
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                let reservations = granted.value
                #expect(reservations.count == 10)
                #expect(peak <= 10)
                let held = try #require(try await ledger.usage(of: scope.key))
                #expect(held.reservedCents == 10)
                #expect(held.reservedTokens == 100)
                #expect(held.spentCents == 0)

                // Settle each to 0.75¢, twice (the second is a no-op).
                for reservation in reservations {
                    try await ledger.settle(reservation, cents: 0.75, tokens: 7)
                    try await ledger.settle(reservation, cents: 0.75, tokens: 7)
                }
                let settled = try #require(try await ledger.usage(of: scope.key))
                #expect(settled.reservedCents == 0)
                #expect(settled.reservedTokens == 0)
                #expect(settled.spentCents == 7.5)
                #expect(settled.spentTokens == 70)
                // 2.5¢ are left: exactly two more 1.25¢ reservations fit.
                #expect(try await ledger.reserve(scope, cents: 1.25, tokens: 1) != nil)
                #expect(try await ledger.reserve(scope, cents: 1.25, tokens: 1) != nil)
                #expect(try await ledger.reserve(scope, cents: 0.01, tokens: 1) == nil)
            }
        }

        @Test func fiftyConcurrentRoutedRunsNeverOverrunTheBudget() async throws {
            try await Self.withWidePostgres { client in
                try await Self.migrate(client)
                let ledger = PostgresBudgetLedger(client: client, logger: TestEnvironment.logger)
                // A paid provider whose worst case (100 prompt + 100 output tokens at 1¢/10¢ per 1K)
                // is 1.1¢ and which spends exactly that; 11¢ fit ten runs.
                let prices = ModelPrices(["paid:m": ModelPrice(inputCentsPer1K: 1, outputCentsPer1K: 10)])
                let router = ModelRouter(
                    chains: [.synthesis: [PaidProvider(), LocalModelProvider()]], prices: prices, ledger: ledger, logger: TestEnvironment.logger)
                let scope = BudgetScope(key: "it-\(UUID())", limitCents: 11, limitTokens: 1_000_000)
                let request = ModelRequest(
                    phase: .synthesis, system: "", prompt: String(repeating: "x", count: 400), maxOutputTokens: 100, temperature: 0.3,
                    runId: "shared", offlineAnswer: "offline")
                let providers = Shared([String]())
                let peak = try await Self.watchingPeak(ledger, key: scope.key) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<50 {
                            group.addTask {
                                let response = try await router.complete(request, budget: scope, onToken: { _ in })
                                providers.update { $0.append(response.provider) }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                let served = providers.value
                #expect(served.count == 50)
                #expect(served.filter { $0 == "paid" }.count == 10)
                #expect(peak <= 11 + 1e-9)
                let usage = try #require(try await ledger.usage(of: scope.key))
                #expect(abs(usage.spentCents - 11) < 1e-9)
                #expect(usage.reservedCents == 0)
            }
        }

        @Test func staleReservationsAreChargedInFull() async throws {
            try await TestEnvironment.withPostgres { client in
                try await Self.migrate(client)
                let ledger = PostgresBudgetLedger(client: client, logger: TestEnvironment.logger)
                let scope = BudgetScope(key: "it-\(UUID())", limitCents: 5, limitTokens: 500)
                let reservation = try #require(try await ledger.reserve(scope, cents: 2, tokens: 200))
                // Not yet old enough.
                try await ledger.expireReservations(olderThan: .seconds(3600))
                #expect(try await ledger.usage(of: scope.key)?.reservedCents == 2)
                try await Task.sleep(for: .milliseconds(50))
                #expect(try await ledger.expireReservations(olderThan: .milliseconds(10)) >= 1)
                let usage = try #require(try await ledger.usage(of: scope.key))
                #expect(usage.reservedCents == 0)
                #expect(usage.spentCents == 2)
                #expect(usage.spentTokens == 200)
                // A late settle of an expired reservation changes nothing.
                try await ledger.settle(reservation, cents: 0.1, tokens: 1)
                #expect(try await ledger.usage(of: scope.key)?.spentCents == 2)
            }
        }

        @Test func aFirstReservationLargerThanTheLimitIsRefused() async throws {
            try await TestEnvironment.withPostgres { client in
                try await Self.migrate(client)
                let ledger = PostgresBudgetLedger(client: client, logger: TestEnvironment.logger)
                let scope = BudgetScope(key: "it-\(UUID())", limitCents: 1, limitTokens: 100)
                #expect(try await ledger.reserve(scope, cents: 1.5, tokens: 10) == nil)
                #expect(try await ledger.reserve(scope, cents: 0.5, tokens: 101) == nil)
                #expect(try await ledger.usage(of: scope.key) == nil)
                #expect(try await ledger.reserve(scope, cents: 1, tokens: 100) != nil)
            }
        }
    }
}

/// A metered provider that answers at once with fixed usage.
private struct PaidProvider: ModelProvider {
    let name = "paid"
    let model = "m"

    func complete(_ request: ModelRequest, onToken: @escaping @Sendable (String) async -> Void) async throws -> ProviderResult {
        try await Task.sleep(for: .milliseconds(Int.random(in: 1...20)))
        await onToken("paid answer")
        return ProviderResult(text: "paid answer", inputTokens: 100, outputTokens: 100)
    }
}

/// A value shared between a test and the tasks it starts.
private final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ change: (inout Value) -> Void) { storage.withLock { change(&$0) } }
}
