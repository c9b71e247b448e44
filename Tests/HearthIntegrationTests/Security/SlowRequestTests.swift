import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension BackboneSuite {
    /// A connection that sends half a request and then nothing (slowloris) is closed after the
    /// idle timeout instead of being held open for ever.
    @Suite struct SlowRequests {
        @Test func halfARequestIsClosedAfterTheIdleTimeout() async throws {
            try await ServiceProcess.with("gateway", environment: ["HEARTH_HTTP_IDLE_TIMEOUT_S": "2"]) { gateway in
                let started = ContinuousClock.now
                let closed = try await Self.sendHalfARequest(port: gateway.port, waitingAtMost: 15)
                #expect(closed, "the connection was still open after 15 s")
                #expect(ContinuousClock.now - started >= .seconds(1), "not closed before the client had a chance")
                // The server still answers whole requests.
                #expect(try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("healthz")).status == 200)
            }
        }

        /// A head trickled a byte at a time is still idle to the server (its idle timer counts
        /// decoded request parts, not bytes; the gateway's WebSocket-upgrading server has its own
        /// head deadline): every executable closes it once the head has taken the idle timeout.
        @Test func aHeadTrickledByteByByteIsClosedAtItsDeadlineOnEveryServer() async throws {
            for executable in ["gateway", "notifier"] {
                try await ServiceProcess.with(executable, environment: ["HEARTH_HTTP_IDLE_TIMEOUT_S": "2"]) { service in
                    let started = ContinuousClock.now
                    let closed = try await Self.trickleARequest(port: service.port, forAtMost: 15)
                    #expect(closed, "\(executable): a trickled head kept its connection for 15 s")
                    #expect(ContinuousClock.now - started < .seconds(8), "\(executable): closed only after \(ContinuousClock.now - started)")
                    #expect(try await HTTPTestClient.send("GET", service.baseURL.appendingPathComponent("healthz")).status == 200)
                }
            }
        }

        /// A blocking TCP socket connected to 127.0.0.1:`port`, or nil.
        static func connectedSocket(port: Int) -> Int32? {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(descriptor)
                return nil
            }
            return descriptor
        }

        /// Connects and sends a request head one byte every 200 ms, never ending it; true once the
        /// server closes the connection, false when `seconds` pass first.
        static func trickleARequest(port: Int, forAtMost seconds: Int) async throws -> Bool {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    guard let descriptor = Self.connectedSocket(port: port) else { return continuation.resume(throwing: ServiceProcessError.noPort) }
                    defer { Glibc.close(descriptor) }
                    // Reads wait 200 ms at most: between them, one more byte of a head that never ends.
                    var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
                    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    let head = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 200)
                    let deadline = Date().addingTimeInterval(TimeInterval(seconds))
                    var index = 0
                    var buffer = [UInt8](repeating: 0, count: 1024)
                    while Date() < deadline {
                        let byte = head[index % head.count]
                        index += 1
                        if send(descriptor, [byte], 1, Int32(MSG_NOSIGNAL)) < 0 { return continuation.resume(returning: true) }
                        let read = recv(descriptor, &buffer, buffer.count, 0)
                        if read == 0 { return continuation.resume(returning: true) }
                        if read < 0, errno != EAGAIN, errno != EWOULDBLOCK { return continuation.resume(returning: errno == ECONNRESET) }
                    }
                    continuation.resume(returning: false)
                }
            }
        }

        /// Connects, sends request headers without their end, and waits for the server to close
        /// (true) or for `seconds` to pass (false). Blocking socket calls, off the test's executor.
        static func sendHalfARequest(port: Int, waitingAtMost seconds: Int) async throws -> Bool {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    guard let descriptor = Self.connectedSocket(port: port) else { return continuation.resume(throwing: ServiceProcessError.noPort) }
                    defer { Glibc.close(descriptor) }
                    let half = Array("GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
                    _ = half.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
                    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
                    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var buffer = [UInt8](repeating: 0, count: 1024)
                    while true {
                        let read = recv(descriptor, &buffer, buffer.count, 0)
                        if read == 0 { return continuation.resume(returning: true) }  // closed by the server
                        if read < 0 {
                            // Reset by the server counts as closed; a timeout does not.
                            return continuation.resume(returning: errno == ECONNRESET)
                        }
                        // An answer (a 4xx for a malformed request) is fine: keep reading to the close.
                    }
                }
            }
        }
    }
}
