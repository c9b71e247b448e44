import Foundation
import HearthAssist
import HearthEvents
import HearthReadModels
import Testing

@Suite struct AssistReadModelTests {
    @Test func orchestratorMigrationsIncludeTheBudgetLedgerVerbatim() throws {
        let migrations = try ReadModelCatalogue.migrations(of: .assistOrchestrator)
        #expect(migrations.map(\.version) == Array(1...migrations.count))
        #expect(migrations.contains { $0.sql == PostgresBudgetLedger.migrationSQL }, "a migration must be budget_ledger.sql, byte for byte")
        #expect(migrations.contains { $0.sql.contains("CREATE TABLE agent_runs") })
        #expect(migrations.contains { $0.sql.contains("CREATE TABLE run_metrics") })
    }

    @Test func theRunsProjectionOwnsItsTables() {
        let projection = ReadModelCatalogue.projections(of: .assistOrchestrator).first { $0.name == "assist_runs" }
        #expect(projection?.tables == ["agent_runs", "run_metrics", "assist_run_events"])
        #expect(projection?.topics == [.assistEvents])
    }

    @Test func runEventsRoundTripThroughTheCatalogue() throws {
        let runId = UUID()
        let event = AssistRunEvent(runId: runId, seq: 7, event: "done", data: .object(["elapsed_ms": .number(12)]), elapsedMs: 12)
        let data = try EventCatalogue.hearth.encode(Envelope(event, correlationId: "c", source: "test"))
        guard case .event(let decoded) = try EventCatalogue.hearth.decode(data) else {
            Issue.record("not decoded")
            return
        }
        #expect(decoded.payload as? AssistRunEvent == event)
        #expect(decoded.metadata.key == runId.uuidString.lowercased())
        #expect(EventCatalogue.hearth.topic(of: AssistRequested.eventType) == .assistRequests)
        #expect(EventCatalogue.hearth.topic(of: AssistRunCompleted.eventType) == .assistEvents)
    }
}
