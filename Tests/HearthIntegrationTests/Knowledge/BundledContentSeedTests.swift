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
            let (database, url) = try await SeparateDatabase.create(prefix: "hearth_seed")
            let broker = try await DevBrokerProcess.start()
            defer { broker.stop() }
            do {
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
            } catch {
                try? await EmbeddingModelChange.drop(database)
                throw error
            }
            try await EmbeddingModelChange.drop(database)
        }
    }
}

/// A devbroker of a test's own (an empty cluster), on a free port, stopped by `stop`.
final class DevBrokerProcess {
    let bootstrap: String
    private let process: Process
    private let files: [URL]

    private init(bootstrap: String, process: Process, files: [URL]) {
        self.bootstrap = bootstrap
        self.process = process
        self.files = files
    }

    static func start() async throws -> DevBrokerProcess {
        let bootFile = FileManager.default.temporaryDirectory.appendingPathComponent("devbroker-\(UUID().uuidString.prefix(8)).bootstrap")
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("devbroker-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let process = Process()
        process.executableURL = try TestEnvironment.binPath().appendingPathComponent("devbroker")
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["HEARTH_KAFKA_PORT": String(try ServiceProcess.freePort()), "HEARTH_DEVBROKER_BOOTSTRAP_FILE": bootFile.path]) { $1 }
        let log = try FileHandle(forWritingTo: logFile)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, process.isRunning {
            if let text = try? String(contentsOf: bootFile, encoding: .utf8),
               let range = text.range(of: "bootstrap.servers=") {
                let address = text[range.upperBound...].prefix { !$0.isWhitespace }
                if !address.isEmpty { return DevBrokerProcess(bootstrap: String(address), process: process, files: [bootFile, logFile]) }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { process.terminate() }
        let printed = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        throw DevBrokerStartFailure(log: String(printed.suffix(2000)))
    }

    /// Stops the broker (a second call does nothing more) and removes its files.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    struct DevBrokerStartFailure: Error, CustomStringConvertible {
        let log: String
        var description: String { "devbroker did not print its bootstrap address in 30 s:\n\(log)" }
    }
}
