import Foundation

/// Runs `hearthctl` (or another built tool) to completion and captures what it printed.
enum CommandLineTool {
    struct Result {
        let status: Int32
        let output: String
        let errors: String
    }

    static func run(_ arguments: [String], executable: String = "hearthctl") async throws -> Result {
        let process = Process()
        process.executableURL = try TestEnvironment.binPath().appendingPathComponent(executable)
        process.arguments = arguments
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID()).out")
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID()).err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
        }
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        return Result(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
    }

    /// A tool left running (`tail --follow`), its stdout read from the file it writes.
    final class Running {
        private let process: Process
        private let outFile: URL

        fileprivate init(process: Process, outFile: URL) {
            self.process = process
            self.outFile = outFile
        }

        var output: String { (try? String(contentsOf: outFile, encoding: .utf8)) ?? "" }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: outFile)
        }
    }

    static func start(_ arguments: [String], executable: String = "hearthctl") throws -> Running {
        let process = Process()
        process.executableURL = try TestEnvironment.binPath().appendingPathComponent(executable)
        process.arguments = arguments
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID()).out")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return Running(process: process, outFile: outFile)
    }
}
