import Foundation

/// The devbroker's side channel for what librdkafka's mock cluster cannot do over the Kafka
/// protocol (2.0.2 has no CreateTopics handler, and auto-created topics always get 4
/// partitions). It shares the bootstrap port: a line starting with `HEARTH-DEVBROKER ` can never
/// be mistaken for a Kafka request, whose first 4 bytes are its length ("HEAR" would be ~1.2 GB).
public enum DevBrokerControl {
    public static let prefix = "HEARTH-DEVBROKER "
    /// Bounds a control line, which the devbroker buffers until its newline.
    public static let maxLineLength = 1024

    public enum Command: Sendable, Equatable {
        case createTopic(name: String, partitions: Int)
        /// Takes every broker of the cluster down (connections refused and closed) or up again:
        /// a Kafka outage on cue, for the chaos suite.
        case setBrokers(up: Bool)

        public var line: String {
            switch self {
            case .createTopic(let name, let partitions): "\(DevBrokerControl.prefix)CREATE-TOPIC \(name) \(partitions)\n"
            case .setBrokers(let up): "\(DevBrokerControl.prefix)BROKERS \(up ? "UP" : "DOWN")\n"
            }
        }

        /// Parses one line without its newline.
        public init?(line: String) {
            guard line.hasPrefix(DevBrokerControl.prefix) else { return nil }
            let words = line.dropFirst(DevBrokerControl.prefix.count).split(separator: " ")
            if words.count == 2, words[0] == "BROKERS", words[1] == "UP" || words[1] == "DOWN" {
                self = .setBrokers(up: words[1] == "UP")
                return
            }
            guard words.count == 3, words[0] == "CREATE-TOPIC", let partitions = Int(words[2]), partitions > 0,
                  words[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" })
            else { return nil }
            self = .createTopic(name: String(words[1]), partitions: partitions)
        }
    }

    /// Replies are one line: `OK`, `EXISTS`, or `ERR <text>`.
    public enum Reply: Sendable, Equatable {
        case ok
        case exists
        case error(String)

        public var line: String {
            switch self {
            case .ok: "OK\n"
            case .exists: "EXISTS\n"
            case .error(let text): "ERR \(text)\n"
            }
        }

        public init(line: String) {
            switch line {
            case "OK": self = .ok
            case "EXISTS": self = .exists
            default: self = .error(line.hasPrefix("ERR ") ? String(line.dropFirst(4)) : line)
            }
        }
    }

    /// Takes the devbroker's brokers down or up (`address`: its bootstrap `host:port`).
    public static func setBrokers(up: Bool, at address: String) async throws {
        let reply = try await DedicatedThread.run(name: "devbroker-control") { () throws -> Reply in try send(.setBrokers(up: up), to: address) }
        if case .error(let text) = reply { throw KafkaError(code: KafkaErrorCode.invalidArgument, message: "devbroker: \(text)") }
    }

    /// Blocking; call from a dedicated thread. `address` is `host:port` of the devbroker's
    /// bootstrap port.
    static func send(_ command: Command, to address: String, timeoutSeconds: Int = 10) throws(KafkaError) -> Reply {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            throw KafkaError(code: KafkaErrorCode.invalidArgument, message: "bad devbroker address \(address)")
        }
        let host = String(address[..<colon])
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &info) == 0, let first = info else {
            throw KafkaError(code: KafkaErrorCode.transport, message: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(info) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { throw KafkaError(code: KafkaErrorCode.transport, message: "socket(): errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw KafkaError(code: KafkaErrorCode.transport, message: "cannot connect to devbroker at \(address): errno \(errno)")
        }
        let request = Array(command.line.utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw KafkaError(code: KafkaErrorCode.transport, message: "devbroker write failed: errno \(errno)") }
            sent += n
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while !reply.contains(UInt8(ascii: "\n")), reply.count < maxLineLength {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                throw KafkaError(code: KafkaErrorCode.timedOut, message: "devbroker did not answer within \(timeoutSeconds) s")
            }
            guard n > 0 else { break }
            reply += chunk[..<n]
        }
        let line = String(decoding: reply.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard !line.isEmpty else {
            throw KafkaError(code: KafkaErrorCode.transport, message: "devbroker closed the connection without a reply")
        }
        return Reply(line: line)
    }
}
