import Foundation
import HearthAssist
import HearthEvents
import HearthCtlCommands
import Testing

@Suite struct AssistReadModelTests {
    @Test func orchestratorMigrationsCreateTheBudgetLedger() throws {
        let migrations = try ReadModelCatalogue.migrations(of: .assistOrchestrator)
        #expect(migrations.map(\.version) == Array(1...migrations.count))
        #expect(migrations.contains { $0.sql.contains("CREATE TABLE IF NOT EXISTS run_budgets") && $0.sql.contains("run_budget_reservations") })
        #expect(migrations.contains { $0.sql.contains("CREATE TABLE agent_runs") })
        #expect(migrations.contains { $0.sql.contains("CREATE TABLE run_metrics") })
    }

    @Test func theRunsProjectionOwnsItsTables() {
        let projection = ReadModelCatalogue.projections(of: .assistOrchestrator).first { $0.name == "assist_runs" }
        #expect(projection?.tables == ["agent_runs", "run_metrics", "assist_run_events"])
        #expect(projection?.topics == [.assistEvents, .users])
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

@Suite struct AssistRunEventEncodingTests {
    static let data: JSONValue = .object([
        "plan_text": .string("Mon — Tacos \"al pastor\"\n\tTue: Soup \\ bread / 1½ cups\u{1}"),
        "days": .array([.object(["date": .string("2026-03-02"), "minutes": .number(25), "ratio": .number(0.125)]), .null]),
        "flags": .object(["ok": .bool(true), "no": .bool(false), "big": .number(1e21), "neg": .number(-3)]),
    ])

    @Test func theHandWrittenEnvelopeIsTheCataloguesDocument() throws {
        for (event, causation, elapsed) in [("final", "cause-1" as String?, nil as Int?), ("done", nil, 42)] {
            let envelope = Envelope(
                AssistRunEvent(runId: UUID(), seq: 9, event: event, data: Self.data, elapsedMs: elapsed),
                correlationId: "corr", causationId: causation, source: "assist-orchestrator")
            let handWritten = try envelope.jsonBytes()
            let decoded = try JSONDecoder.hearth().decode(Envelope<AssistRunEvent>.self, from: Data(handWritten))
            #expect(decoded == envelope)
            let viaCatalogue = try JSONDecoder.hearth().decode(Envelope<AssistRunEvent>.self, from: EventCatalogue.hearth.encode(envelope))
            #expect(viaCatalogue == decoded)
            // The metadata-only reading the archive does works on it too.
            let metadata = try JSONDecoder.hearth().decode(EventMetadata.self, from: Data(handWritten))
            #expect(metadata == envelope.metadata)
            // And the raw reading the gateway and the replay table do.
            let text = try #require(AssistRunEventText(envelope: handWritten))
            #expect(text.seq == 9 && text.event == event && text.elapsedMs == elapsed)
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.data.utf8)) == Self.data)
        }
    }

    @Test func rawReadingFindsFieldsWhateverTheLayout() throws {
        let spaced = #" { "type" : "x", "data" : { "elapsed_ms" : null , "data" : [1, {"a": "}\"]"}], "event": "token", "seq": 3, "run_id": "r-1" } } "#
        let text = try #require(AssistRunEventText(envelope: Array(spaced.utf8)))
        #expect(text.runId == "r-1" && text.seq == 3 && text.event == "token" && text.elapsedMs == nil)
        #expect(text.data == #"[1, {"a": "}\"]"}]"#)
        #expect(AssistRunEventText(envelope: Array(#"{"data": {"seq": 1}}"#.utf8)) == nil)
        #expect(AssistRunEventText(envelope: Array("not json".utf8)) == nil)
    }
}
