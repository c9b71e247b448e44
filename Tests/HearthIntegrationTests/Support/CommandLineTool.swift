import Foundation

/// Runs `hearthctl` (or another built tool), to completion or left running, and reads what it
/// printed from the files its stdout and stderr write to.
enum CommandLineTool {
    struct Result {
        let status: Int32
        let output: String
        let errors: String
    }

    /// `input`, when given, is the tool's stdin (then closed).
    static func run(_ arguments: [String], executable: String = "hearthctl", environment: [String: String] = [:], input: String? = nil) async throws -> Result {
        let tool = try start(arguments, executable: executable, environment: environment, input: input)
        defer { tool.stop() }
        while tool.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        return Result(status: tool.status, output: tool.output, errors: tool.errors)
    }

    /// A tool left running (`tail --follow`); `stop` ends it and removes its files.
    final class Running {
        private let process: Process
        private let outFile: URL
        private let errFile: URL
        private let inFile: URL?

        fileprivate init(process: Process, outFile: URL, errFile: URL, inFile: URL?) {
            self.process = process
            self.outFile = outFile
            self.errFile = errFile
            self.inFile = inFile
        }

        var isRunning: Bool { process.isRunning }
        var status: Int32 { process.terminationStatus }
        var output: String { (try? String(contentsOf: outFile, encoding: .utf8)) ?? "" }
        var errors: String { (try? String(contentsOf: errFile, encoding: .utf8)) ?? "" }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
            if let inFile { try? FileManager.default.removeItem(at: inFile) }
        }
    }

    /// `environment` is added to the test process's own (pointed at the test's own stack, if any).
    static func start(_ arguments: [String], executable: String = "hearthctl", environment: [String: String] = [:], input: String? = nil) throws -> Running {
        let process = Process()
        // A bare name is one of ours (the build's binaries); an absolute path a system tool (chromium).
        process.executableURL = executable.hasPrefix("/") ? URL(fileURLWithPath: executable) : try TestEnvironment.binPath().appendingPathComponent(executable)
        process.arguments = arguments
        process.environment = TestEnvironment.childEnvironment(environment)
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID()).out")
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID()).err")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        var inFile: URL?
        if let input {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID()).in")
            try Data(input.utf8).write(to: file)
            process.standardInput = try FileHandle(forReadingFrom: file)
            inFile = file
        }
        try process.run()
        return Running(process: process, outFile: outFile, errFile: errFile, inFile: inFile)
    }
}
