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
                try? await Self.drop(database)
                throw error
            }
            try await Self.drop(database)
        }

        /// `WITH (FORCE)` cannot end an autovacuum worker that has just started on the database
        /// (it runs as the superuser, the tests as `hearth`); such a worker leaves within moments.
        static func drop(_ database: String) async throws {
            try await TestEnvironment.withPostgres { client in
                for attempt in 1...10 {
                    do {
                        _ = try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"), logger: TestEnvironment.logger)
                        return
                    } catch where attempt < 10 {
                        try await Task.sleep(for: .milliseconds(500))
                    }
                }
            }
        }
    }
}

/// A Postgres client on another database than the suite's, run until `close`.
final class SeparateDatabase: Sendable {
    /// Creates an empty database on the suite's server; its name and URL.
    static func create(prefix: String) async throws -> (name: String, url: String) {
        let database = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let baseURL = try TestEnvironment.databaseURL()
        let url = try #require(baseURL.range(of: "/", options: .backwards).map { String(baseURL[..<$0.lowerBound]) + "/" + database })
        try await TestEnvironment.withPostgres { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(database)"), logger: TestEnvironment.logger)
        }
        return (database, url)
    }

    let client: PostgresClient
    let task: Task<Void, Never>

    init(url: String) throws {
        client = PostgresClient(configuration: try HearthStore.DatabaseConfiguration(url: url, maximumConnections: 2).client, backgroundLogger: TestEnvironment.logger)
        task = Task { [client] in await client.run() }
    }

    func count(_ sql: String) async throws -> Int {
        try await KnowledgeStack.count(client, sql)
    }

    func close() async throws {
        task.cancel()
        await task.value
    }
}
