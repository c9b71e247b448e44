import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// What a fake HTTP server received: one request.
struct ReceivedRequest: Sendable {
    var method: String
    var path: String
    var headers: [String: String]
    var body: Data
    /// `HTTP/2.0` for the fake APNs (it speaks nothing else).
    var version: String

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Records requests and answers them from a per-path script (then 200).
final class FakeResponder: Sendable {
    struct Answer: Sendable {
        var status: Int
        var body: String
        var headers: [String: String] = [:]
    }

    private let state = Mutex<(requests: [ReceivedRequest], scripts: [String: [Answer]])>(([], [:]))

    /// Answers the next requests to `path` with these, in order; later ones get 200.
    func script(_ path: String, _ answers: [Answer]) {
        state.withLock { $0.scripts[path, default: []] += answers }
    }

    var requests: [ReceivedRequest] { state.withLock { $0.requests } }

    func requests(to path: String) -> [ReceivedRequest] { requests.filter { $0.path == path } }

    func answer(_ request: ReceivedRequest) -> Answer {
        state.withLock { state in
            state.requests.append(request)
            if var queue = state.scripts[request.path], !queue.isEmpty {
                let answer = queue.removeFirst()
                state.scripts[request.path] = queue
                return answer
            }
            return Answer(status: 200, body: "")
        }
    }
}

/// Turns HTTP/1-shaped request parts (HTTP/2 streams go through `HTTP2FramePayloadToHTTP1ServerCodec`)
/// into recorded requests and scripted answers.
final class RecordingHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: FakeResponder
    private var head: HTTPRequestHead?
    private var body = Data()

    init(responder: FakeResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = Data()
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let request = ReceivedRequest(
                method: head.method.rawValue, path: head.uri, headers: headers, body: body,
                version: "HTTP/\(head.version.major).\(head.version.minor)")
            let answer = responder.answer(request)
            var responseHeaders = HTTPHeaders()
            responseHeaders.add(name: "content-length", value: String(answer.body.utf8.count))
            if let apnsId = headers["apns-id"] { responseHeaders.add(name: "apns-id", value: apnsId) }
            for (name, value) in answer.headers { responseHeaders.add(name: name, value: value) }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .init(statusCode: answer.status), headers: responseHeaders))), promise: nil)
            if !answer.body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            self.head = nil
        }
    }
}

/// A local APNs: HTTP/2 only (ALPN `h2`) over TLS with a self-signed certificate made by the
/// `openssl` CLI for 127.0.0.1. The notifier trusts it through HEARTH_APNS_CA_FILE.
final class FakeAPNsServer: Sendable {
    let responder: FakeResponder
    let port: Int
    let certificateFile: String
    private let channel: any Channel

    private init(responder: FakeResponder, port: Int, certificateFile: String, channel: any Channel) {
        self.responder = responder
        self.port = port
        self.certificateFile = certificateFile
        self.channel = channel
    }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    static func start() async throws -> FakeAPNsServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-fake-apns-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw FakeServerError.certificate }

        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let responder = FakeResponder()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), RecordingHTTPHandler(responder: responder),
                            ])
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FakeAPNsServer(responder: responder, port: channel.localAddress?.port ?? 0, certificateFile: certificate, channel: channel)
    }

    func stop() async {
        try? await channel.close().get()
    }
}

/// A plain HTTP/1.1 server for webhook deliveries.
final class FakeWebhookReceiver: Sendable {
    let responder: FakeResponder
    let port: Int
    private let channel: any Channel

    private init(responder: FakeResponder, port: Int, channel: any Channel) {
        self.responder = responder
        self.port = port
        self.channel = channel
    }

    static func start() async throws -> FakeWebhookReceiver {
        let responder = FakeResponder()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RecordingHTTPHandler(responder: responder))
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FakeWebhookReceiver(responder: responder, port: channel.localAddress?.port ?? 0, channel: channel)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() async {
        try? await channel.close().get()
    }
}

enum FakeServerError: Error { case certificate }
