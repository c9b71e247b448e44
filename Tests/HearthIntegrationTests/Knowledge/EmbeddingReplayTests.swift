import EmbeddingWorkerService
import Foundation
import HearthCtlCommands
import HearthEmbeddings
import HearthEvents
import HearthKafka
import HearthKnowledge
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// `hearthctl replay document_chunks` re-embeds every document, in batches that have nothing
    /// to do with the ones the live embedding-worker saw. The rebuilt tables must still have the
    /// live tables' checksum, so every vector must come out bit for bit the same.
    @Suite struct EmbeddingReplay {
        /// The whole command against what the suite has written so far: every service runs until
        /// each projection has applied everything on its topics, then stops, so that nothing moves
        /// while `replay --all` rebuilds every projection (the embedding tables, one referencing
        /// the other, by embedding the library again in hearthctl) and swaps each in. Every
        /// checksum must come out identical, and the foreign key must be kept.
        @Test func hearthctlReplayAllRebuildsEveryProjectionWithTheSameChecksum() async throws {
            try await KnowledgeStack.with { _, _ in
                try await ServiceProcess.with(["assist-orchestrator", "profile-extractor", "notifier"]) {
                    try await ProjectionCatchUp.require(timeout: .seconds(180))
                }
            }
            let result = try await CommandLineTool.run(["replay", "--all"])
            #expect(result.status == 0, "\(result.output)\n\(result.errors)")
            let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let rebuilt = lines.filter { $0.hasPrefix("projection: ") }.map { String($0.dropFirst("projection: ".count)) }
            #expect(rebuilt == ReadModelCatalogue.allProjections.filter(\.decodesPayloads).map(\.name))
            #expect(rebuilt.contains("document_chunks"))
            let verdicts = lines.filter { $0 == "identical" || $0 == "DIFFERENT" }
            #expect(verdicts.count == rebuilt.count && verdicts.allSatisfy { $0 == "identical" }, "\(result.output)")
            // The same library embedded again as a CPU of each other kind would (every vector path
            // this one runs, forced): the same checksum, so a replay on any machine agrees.
            for path in EncoderKernelPath.supported where path != .portable {
                let dryRun = try await CommandLineTool.run(["replay", "document_chunks", "--dry-run"], environment: [EncoderKernelPath.environmentVariable: path.rawValue])
                #expect(dryRun.status == 0 && dryRun.output.contains("identical"), "\(path): \(dryRun.output)\n\(dryRun.errors)")
            }
            try await TestEnvironment.withPostgres { client in
                let keys = try await client.query(
                    "SELECT confrelid::regclass::text FROM pg_constraint WHERE contype = 'f' AND conrelid = 'public.document_chunks'::regclass",
                    logger: TestEnvironment.logger
                ).collect().map { try $0.decode(String.self) }
                #expect(keys == ["content_documents"])
            }
        }

        @Test func documentsEmbeddedOneByOneAndAllTogetherGiveTheSameChecksum() async throws {
            let suffix = UUID().uuidString.prefix(8).lowercased()
            let paragraph = "Toddlers copy what they see, so narrate the routine out loud: shoes on, coat zipped, bag on the hook. "
            let events = (0..<6).map { index in
                let id = "replay-\(suffix)-\(index)"
                let body = "## Part \(index)\n\n" + String(repeating: paragraph, count: 2 + index) + "\n\n## More\n\nKeep it short and calm."
                let document = DocumentUpserted(
                    documentId: id, kind: "tips", title: "Getting out of the door \(index)", ageMin: 1, ageMax: 5, allergens: [],
                    body: body, contentHash: "hash-\(suffix)-\(index)")
                return ProjectedEvent(
                    position: EventPosition(topic: Topic.content.name, partition: 0, offset: Int64(index)),
                    metadata: EventMetadata(type: DocumentUpserted.eventType, version: DocumentUpserted.version, key: id, correlationId: id, causationId: nil, source: "test"),
                    payload: document, value: [])
            }
            // A word is at least one token: together the documents are more rows than two calls of
            // the kernel take (256 each), so the batch is computed in another shape than each alone.
            let words = events.compactMap { ($0.payload as? DocumentUpserted)?.body.split(separator: " ").count }.reduce(0, +)
            #expect(words > 512)

            let projection = DocumentChunksProjection(provider: MiniLMEmbeddingProvider())
            // The replays' batches, on every vector kernel path this CPU runs.
            let replays = EncoderKernelPath.supported.filter { $0 != .portable }.map {
                ($0, DocumentChunksProjection(provider: MiniLMEmbeddingProvider(kernelPath: $0)))
            }
            let logger = TestEnvironment.logger
            try await TestEnvironment.withPostgres { client in
                try await MigrationRunner(client: client, logger: logger).apply(ReadModelCatalogue.migrations(of: .embeddingWorker))
                let live = "replay_live_\(suffix)", rebuilt = "replay_rebuilt_\(suffix)"
                let schemas = [live] + replays.map { "\(rebuilt)_\($0.0.rawValue)" }
                for schema in schemas {
                    try await client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: logger)
                    for table in projection.tables {
                        try await client.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(schema).\(table) (LIKE public.\(table) INCLUDING ALL)"), logger: logger)
                    }
                }
                func apply(_ batch: [ProjectedEvent], into schema: String, with projection: DocumentChunksProjection) async throws {
                    try await client.withTransaction(logger: logger) { connection in
                        try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(schema), public"), logger: logger)
                        try await projection.apply(batch, on: connection, logger: logger)
                    }
                }
                do {
                    for event in events { try await apply([event], into: live, with: projection) }  // as the worker met them
                    let chunks = try await client.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(live).document_chunks"), logger: logger)
                        .collect().first?.decode(Int.self)
                    #expect(chunks ?? 0 >= events.count)
                    let before = try await TableChecksum.compute(tables: projection.tables, schema: live, client: client, logger: logger)
                    #expect(!replays.isEmpty)
                    for (path, replay) in replays {
                        let schema = "\(rebuilt)_\(path.rawValue)"
                        try await apply(events, into: schema, with: replay)  // as a replay's batch
                        let after = try await TableChecksum.compute(tables: projection.tables, schema: schema, client: client, logger: logger)
                        #expect(before == after, "one by one: \(before); together on \(path): \(after)")
                    }
                } catch {
                    Issue.record(error)
                }
                for schema in schemas {
                    try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger)
                }
            }
        }
    }
}
