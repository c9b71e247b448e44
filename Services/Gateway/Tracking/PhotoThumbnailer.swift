import Foundation
import Synchronization

/// Makes a photo's thumbnail with libvips' `vipsthumbnail` (Debian `libvips-tools`, installed by
/// `make setup`): it decodes JPEG and PNG, honours the EXIF orientation, and never holds more of a
/// large image in memory than the thumbnail needs. The image goes through a private temporary
/// directory that is removed whatever happens.
struct PhotoThumbnailer: Sendable {
    var executable = "vipsthumbnail"
    var size = 320
    /// A thumbnail takes well under a second; a tool still busy after this is stuck and is killed.
    var timeout: Duration = .seconds(30)

    enum Failure: Error {
        /// The tool could not read the image: it is not a picture it knows, or it is damaged.
        case unreadable(String)
        /// The tool is missing or broke: the server's fault, not the client's.
        case unavailable(String)
    }

    func thumbnail(of image: Data, fileExtension: String) async throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-photo-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.\(fileExtension)")
        let output = directory.appendingPathComponent("thumb.jpg")
        try image.write(to: input)
        // The tool's messages go to a file, not a pipe: a damaged image can make it write more than
        // a pipe holds, and it would block with nobody reading.
        let messages = directory.appendingPathComponent("messages.txt")
        FileManager.default.createFile(atPath: messages.path, contents: nil)
        let messageHandle = try FileHandle(forWritingTo: messages)
        defer { try? messageHandle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable, input.path, "--size", "\(size)x\(size)", "-o", output.path + "[Q=80,strip]"]
        process.standardError = messageHandle
        process.standardOutput = FileHandle.nullDevice
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
        let message = (try? String(contentsOf: messages, encoding: .utf8)) ?? ""
        if status == 127 { throw Failure.unavailable("\(executable) is not installed (make setup installs libvips-tools)") }
        guard status == 0, let thumbnail = try? Data(contentsOf: output), !thumbnail.isEmpty else {
            throw Failure.unreadable(message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return thumbnail
    }
}

/// The tool's process id while it runs, for the watchdog (a class: a `Mutex` is shared by reference).
private final class RunningProcess: Sendable {
    let pid = Mutex<Int32?>(nil)
}

/// The picture formats a photo may be, told by the file's first bytes (not by what the client
/// says it is).
enum PhotoFormat: String {
    case jpeg = "image/jpeg"
    case png = "image/png"

    static let maxBytes = 10 * 1024 * 1024

    var fileExtension: String { self == .jpeg ? "jpg" : "png" }

    enum Refusal: Error, Equatable {
        case heic
        case other
    }

    static func sniff(_ bytes: Data) throws(Refusal) -> PhotoFormat {
        let head = [UInt8](bytes.prefix(16))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        // ISO base media files: `ftyp` at offset 4, then the brand (heic, heix, mif1, ...).
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif"].contains(brand) { throw .heic }
        }
        throw .other
    }
}
