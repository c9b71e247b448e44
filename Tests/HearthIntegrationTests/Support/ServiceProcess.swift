import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real Hearth executable started as a child process, the way `make run` starts it, so tests
/// can stop it gracefully or kill it outright.
final class ServiceProcess {
    let executable: String
    let port: Int
    let logFile: URL
    /// `Process` is thread-safe to query (`isRunning`), so a test may poll it from a `@Sendable` closure.
    let process = Process()

    init(_ executable: String, environment extra: [String: String] = [:]) throws {
        self.executable = executable
        self.port = try Self.freePort()
        self.logFile = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(executable)-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        var environment = TestEnvironment.childEnvironment()
        environment["HEARTH_HTTP_PORT"] = String(port)
        environment["HEARTH_ENV"] = "test"
        environment["HEARTH_LOG_FORMAT"] = "text"
        // Tests hammer the API from one address; only the rate-limit tests ask for real limits.
        environment["HEARTH_RATE_LIMIT_PER_MIN"] = "100000"
        environment["HEARTH_AUTH_RATE_LIMIT_PER_MIN"] = "100000"
        environment["HEARTH_DEVICE_SIGNUPS_PER_HOUR"] = "100000"
        // Tests choose their content; only the seeding test lets the worker publish the library.
        environment["HEARTH_SEED_CONTENT"] = "false"
        for (key, value) in extra { environment[key] = value }
        process.executableURL = try TestEnvironment.binPath().appendingPathComponent(executable)
        process.environment = environment
        let handle = try FileHandle(forWritingTo: logFile)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var isRunning: Bool { process.isRunning }

    /// Waits until `/readyz` answers 200.
    func waitUntilReady(timeout: Duration = .seconds(90)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw ServiceProcessError.exited(executable, log: logTail()) }
            if let (status, _) = try? await HTTPTestClient.get(baseURL.appendingPathComponent("readyz")), status == 200 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw ServiceProcessError.notReady(executable, log: logTail())
    }

    /// SIGTERM, then waits for the process to exit. A service bounds its own shutdown
    /// (`HEARTH_SHUTDOWN_TIMEOUT_S`, 30 s); one still running a minute later is a failure, and is
    /// killed so that the suite goes on instead of hanging.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        if !(await waitForExit(within: .seconds(60))) {
            Issue.record("\(executable) did not stop within 60 s of SIGTERM; log tail:\n\(logTail())")
            await kill()
        }
    }

    /// SIGKILL: no chance to flush, commit or leave the consumer group.
    func kill() async {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        await waitForExit()
    }

    var terminationStatus: Int32 { process.terminationStatus }

    /// True once the process exited; false when it still runs after `limit` (nil: no limit).
    @discardableResult
    private func waitForExit(within limit: Duration? = nil) async -> Bool {
        let deadline = limit.map { ContinuousClock.now + $0 }
        while process.isRunning {
            if let deadline, ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    func logTail(lines: Int = 40) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// A port free a moment ago: the kernel's pick, released at once for the child to bind.
    static func freePort() throws -> Int {
        let socket = try LoopbackSocket(listening: false)
        socket.close()
        return socket.port
    }
}

enum ServiceProcessError: Error, CustomStringConvertible {
    case exited(String, log: String)
    case notReady(String, log: String)
    case noPort

    var description: String {
        switch self {
        case .exited(let name, let log): "\(name) exited before it was ready; log tail:\n\(log)"
        case .notReady(let name, let log): "\(name) did not become ready; log tail:\n\(log)"
        case .noPort: "no free port"
        }
    }
}

extension ServiceProcess {
    /// Starts `executable`, waits until it is ready, runs `body`, and stops it gracefully
    /// whether `body` succeeded or not.
    static func with<T>(
        _ executable: String, environment: [String: String] = [:], _ body: (ServiceProcess) async throws -> T
    ) async throws -> T {
        let service = try ServiceProcess(executable, environment: environment)
        do {
            try await service.waitUntilReady()
            let result = try await body(service)
            await service.stop()
            return result
        } catch {
            await service.stop()
            throw error
        }
    }

    /// Starts each of `executables` in turn (with default environments), runs `body` while all
    /// run, and stops them in reverse order.
    static func with<T>(_ executables: some Collection<String>, _ body: () async throws -> T) async throws -> T {
        guard let first = executables.first else { return try await body() }
        return try await with(first) { _ in try await with(executables.dropFirst(), body) }
    }
}
