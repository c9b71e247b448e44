import EmbeddingWorkerService
import Foundation
import HearthEvents
import HearthKafka
import PostgresNIO
import Testing

extension BackboneSuite {
    /// A new install's first search must answer something: an embedding-worker that finds no
    /// document and nothing ever published to `content` publishes the bundled library, once.
    /// Runs on a database and a devbroker of its own, the state of a fresh `make run`.
    @Suite struct BundledContentSeed {
        @Test func aNewInstallPublishesTheBundledLibraryOnceAndEmbedsIt() async throws {
            try await IsolatedStack.with(prefix: "hearth_seed") { url, broker in
                let ownDatabase = try SeparateDatabase(url: url)
                let environment = ["HEARTH_DATABASE_URL": url, "HEARTH_KAFKA_BOOTSTRAP": broker.bootstrap, "HEARTH_SEED_CONTENT": "true"]
                let admin = KafkaAdmin(bootstrapServers: broker.bootstrap, logger: TestEnvironment.logger)
                let partitions = (0..<Int32(Topic.content.partitions)).map { KafkaTopicPartition(topic: Topic.content.name, partition: $0) }
                func published() async throws -> Int64 { try await admin.watermarks(partitions).values.map(\.high).reduce(0, +) }

                try await ServiceProcess.with("embedding-worker", environment: environment) { worker in
                    let embedded = await KafkaTestEnvironment.eventually(timeout: .seconds(900)) {
                        (try? await ownDatabase.count("SELECT count(*) FROM content_documents WHERE model = 'all-MiniLM-L6-v2'")) ?? 0 >= KnowledgeStack.builtInCount
                    }
                    #expect(embedded, "\(worker.logTail())")
                    #expect(worker.logTail(lines: .max).contains("published the bundled documents"))
                }
                #expect(KnowledgeStack.builtInCount > 100)
                // The library, then the worker's `content.embedded` announcements on the same topic.
                let afterFirstStart = try await published()
                #expect(afterFirstStart >= Int64(KnowledgeStack.builtInCount))
                #expect(try await ownDatabase.count("SELECT count(*) FROM document_chunks") >= KnowledgeStack.builtInCount)

                // Started again, it finds the library there and publishes nothing.
                try await ServiceProcess.with("embedding-worker", environment: environment) { worker in
                    let logFile = worker.logFile
                    let decided = await KafkaTestEnvironment.eventually(timeout: .seconds(60)) {
                        ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").contains("content library already managed")
                    }
                    #expect(decided, "\(worker.logTail())")
                }
                #expect(try await published() == afterFirstStart)
                try await ownDatabase.close()
            }
        }
    }
}
