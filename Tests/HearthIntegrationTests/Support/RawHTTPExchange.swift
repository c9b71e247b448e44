import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bytes written to a loopback port as they are, and whatever comes back until the server closes
/// the connection or `timeout` passes: for requests no HTTP client library will send (a broken
/// chunked body).
enum RawHTTPExchange {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func send(_ request: String, toPort port: Int, timeout: TimeInterval = 10) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: errno \(errno)") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "write: errno \(errno)") }
            sent += written
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            reply.append(contentsOf: buffer[0..<count])
            // One answer is all a test here waits for; the connection may stay open after it.
            if let text = String(bytes: reply, encoding: .utf8), text.contains("\r\n\r\n"), text.hasSuffix("}") { break }
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
