import Foundation
import HearthStore
import PostgresNIO
import Testing

/// A database and a devbroker of a test's own: the state of a fresh `make run`, for tests that
/// need an empty topic or leave a partition held. Both are removed afterwards, whatever happened.
enum IsolatedStack {
    /// `template`: a database to copy instead of starting empty.
    static func with<T>(
        prefix: String, template: String? = nil, _ body: (_ databaseURL: String, _ broker: DevBrokerProcess) async throws -> T
    ) async throws -> T {
        let (database, url) = try await SeparateDatabase.create(prefix: prefix, template: template)
        let result: Result<T, any Error>
        do {
            let broker = try await DevBrokerProcess.start()
            defer { broker.stop() }
            result = .success(try await body(url, broker))
        } catch {
            result = .failure(error)
        }
        try? await SeparateDatabase.drop(database)
        return try result.get()
    }
}

/// A Postgres client on another database than the suite's, run until `close`.
final class SeparateDatabase: Sendable {
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

    /// Creates a database on the suite's server, empty or a copy of `template`; its name and URL.
    static func create(prefix: String, template: String? = nil) async throws -> (name: String, url: String) {
        let database = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let baseURL = try TestEnvironment.databaseURL()
        let url = try #require(baseURL.range(of: "/", options: .backwards).map { String(baseURL[..<$0.lowerBound]) + "/" + database })
        let sql = "CREATE DATABASE \(database)" + (template.map { " TEMPLATE \($0)" } ?? "")
        try await TestEnvironment.withPostgres { client in
            // A template's last session may still be leaving (Postgres refuses to copy a database
            // someone is connected to) for a moment after its client closed.
            for attempt in 1...10 {
                do {
                    _ = try await client.query(PostgresQuery(unsafeSQL: sql), logger: TestEnvironment.logger)
                    return
                } catch where template != nil && attempt < 10 {
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
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
