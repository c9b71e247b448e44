import Foundation
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// A change of embedding model re-embeds everything; the index never holds two models.
    /// Runs on a database of its own (the worker's offsets and tables start empty there) with a
    /// fake OpenAI embeddings API, so it neither waits for MiniLM nor disturbs the shared index.
    @Suite struct EmbeddingModelChange {
        @Test func restartingWithAnotherModelReembedsEveryDocument() async throws {
            let (database, url) = try await SeparateDatabase.create(prefix: "hearth_reembed")
            let id = "kb-model-\(UUID().uuidString.prefix(8).lowercased())"
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(id).md")
            try "---\nid: \(id)\ntitle: Model change probe\nkind: tips\nmin_age: 1\nmax_age: 9\n---\n## One\n\nFirst part.\n\n## Two\n\nSecond part."
                .write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let ingest = try await CommandLineTool.run(["ingest", file.path])
            #expect(ingest.status == 0, "\(ingest.errors)")

            let api = OpenAIEmbeddingProviderTests.FakeEmbeddingsAPI { (200, OpenAIEmbeddingProviderTests.answer(for: $0)) }
            do {
                try await api.serve { fakeURL in
                    let ownDatabase = try SeparateDatabase(url: url)
                    for model in ["fake-a", "fake-b"] {
                        let environment = [
                            "HEARTH_DATABASE_URL": url, "HEARTH_EMBEDDING_PROVIDER": "openai", "HEARTH_OPENAI_API_KEY": "test-key",
                            "HEARTH_OPENAI_BASE_URL": fakeURL, "HEARTH_OPENAI_EMBEDDING_MODEL": model,
                        ]
                        try await ServiceProcess.with("embedding-worker", environment: environment) { worker in
                            let settled = await KafkaTestEnvironment.eventually(timeout: .seconds(120)) {
                                let stale = (try? await ownDatabase.count("SELECT count(*) FROM content_documents WHERE model IS DISTINCT FROM 'openai/\(model)'")) ?? -1
                                let mine = (try? await ownDatabase.count("SELECT count(*) FROM content_documents WHERE document_id = '\(id)' AND model = 'openai/\(model)'")) ?? 0
                                return stale == 0 && mine == 1
                            }
                            #expect(settled, "\(model): \(worker.logTail())")
                        }
                        #expect(try await ownDatabase.count("SELECT count(*) FROM document_chunks WHERE model <> 'openai/\(model)'") == 0)
                        // Two short sections merge into one chunk.
                        #expect(try await ownDatabase.count("SELECT count(*) FROM document_chunks WHERE document_id = '\(id)'") == 1)
                    }
                    #expect(try await ownDatabase.count("SELECT embed_count FROM content_documents WHERE document_id = '\(id)'") == 2)
                    try await ownDatabase.close()
                }
                let asked = api.requests.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
                #expect(Set(asked.compactMap { $0["model"] as? String }) == ["fake-a", "fake-b"])
            } catch {
                try? await SeparateDatabase.drop(database)
                throw error
            }
            try await SeparateDatabase.drop(database)
        }
    }
}
