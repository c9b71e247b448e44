import Foundation
import Synchronization

/// Runs a Debian command-line tool (libvips, poppler's `pdftotext`, `tesseract`: the gateway's
/// photos and daycare reports, `hearthctl eval import`)
/// on a file in a private temporary directory that is removed whatever happens. Its messages go to
/// a file, not a pipe (a damaged input can make a tool write more than a pipe holds, and it would
/// block with nobody reading), and a tool still busy after `timeout` is stuck and is killed.
public struct ToolRunner: Sendable {
    public var timeout: Duration

    public init(timeout: Duration = .seconds(30)) {
        self.timeout = timeout
    }

    public enum Failure: Error {
        /// The tool ran and failed on this input (its messages, shortened).
        case failed(status: Int32, messages: String)
        /// The tool is missing or could not start: the server's fault, not the client's.
        case unavailable(String)
    }

    /// Writes `input` as `in.<inputExtension>`, runs `executable` with `arguments` (`{in}` stands for
    /// the input file, `{out}` for `out.<outputExtension>`, and `{outroot}` for `out` without it, for
    /// tools that add the extension themselves), and answers what it wrote to stdout, and the file
    /// `out.<outputExtension>` when it wrote one.
    public func run(
        _ executable: String, _ arguments: [String], input: Data, inputExtension: String, outputExtension: String = "out"
    ) async throws -> (stdout: Data, output: Data?) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-tool-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputFile = directory.appendingPathComponent("in.\(inputExtension)")
        let outputPath = directory.appendingPathComponent("out.\(outputExtension)").path
        try input.write(to: inputFile)
        let stdoutFile = directory.appendingPathComponent("stdout")
        let messagesFile = directory.appendingPathComponent("messages")
        FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        FileManager.default.createFile(atPath: messagesFile.path, contents: nil)
        let stdoutHandle = try FileHandle(forWritingTo: stdoutFile)
        let messagesHandle = try FileHandle(forWritingTo: messagesFile)
        defer {
            try? stdoutHandle.close()
            try? messagesHandle.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let outputRoot = directory.appendingPathComponent("out").path
        process.arguments = [executable] + arguments.map {
            $0.replacingOccurrences(of: "{in}", with: inputFile.path).replacingOccurrences(of: "{outroot}", with: outputRoot)
                .replacingOccurrences(of: "{out}", with: outputPath)
        }
        process.standardOutput = stdoutHandle
        process.standardError = messagesHandle
        let running = RunningProcess()
        let limit = timeout
        let watchdog = Task {
            try await Task.sleep(for: limit)
            running.pid.withLock { pid in if let pid { _ = kill(pid, SIGKILL) } }
        }
        defer { watchdog.cancel() }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                running.pid.withLock { $0 = nil }
                continuation.resume(returning: finished.terminationStatus)
            }
            do {
                try process.run()
                let pid = process.processIdentifier
                running.pid.withLock { if process.isRunning { $0 = pid } }
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: Failure.unavailable("\(executable) could not be started: \(error)"))
            }
        }
        if status == 127 { throw Failure.unavailable("\(executable) is not installed (make setup installs it)") }
        guard status == 0 else {
            let messages = (try? String(contentsOf: messagesFile, encoding: .utf8)) ?? ""
            throw Failure.failed(status: status, messages: String(messages.prefix(500)))
        }
        let stdout = (try? Data(contentsOf: stdoutFile)) ?? Data()
        let produced = FileManager.default.fileExists(atPath: outputPath) ? try? Data(contentsOf: URL(fileURLWithPath: outputPath)) : nil
        return (stdout, produced)
    }
}

/// The tool's process id while it runs, for the watchdog (a class: a `Mutex` is shared by reference).
private final class RunningProcess: Sendable {
    let pid = Mutex<Int32?>(nil)
}
