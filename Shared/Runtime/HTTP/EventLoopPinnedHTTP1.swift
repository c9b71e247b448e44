import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// HTTP/1.1 connections whose request handling runs on the connection's own event loop.
///
/// Hummingbird runs each connection's task on Swift's global executor, so every request crosses
/// threads twice more than it must: the event loop hands the request to a pool thread, and the
/// response goes back to the loop. On a small machine those wake-ups are a large part of a fast
/// request. Here the connection's task prefers an executor that runs its jobs on the channel's
/// event loop, so reading the request, the handler and writing the response stay on one thread;
/// awaited work elsewhere (a Postgres connection's loop, a Kafka acknowledgement) still resumes there.
///
/// The price: a handler's CPU work runs on an I/O thread. Handlers that compute for long (a query
/// embedding) leave the loop explicitly, with `withTaskExecutorPreference(globalConcurrentExecutor)`.
public struct EventLoopPinnedHTTP1Channel: ServerChildChannel {
    public typealias Value = HTTP1Channel.Value
    private let connection: HTTP1Channel

    public init(responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP1Channel.Configuration = .init()) {
        connection = HTTP1Channel(responder: responder, configuration: configuration)
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        connection.setup(channel: channel, logger: logger)
    }

    public func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await connection.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with each connection's handling on its event loop (see `EventLoopPinnedHTTP1Channel`).
    public static func eventLoopPinnedHTTP1(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in EventLoopPinnedHTTP1Channel(responder: responder, configuration: configuration) }
    }
}

/// A `TaskExecutor` that runs every job on one NIO event loop.
final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// `EventLoopPinnedHTTP1Channel` for a server that also accepts WebSocket upgrades: the same
/// event-loop preference around hummingbird-websocket's channel, so plain requests keep their
/// speed on an executable that has live connections.
public struct EventLoopPinnedWebSocketUpgradeChannel: ServerChildChannel {
    public typealias Value = HTTP1WebSocketUpgradeChannel.Value
    private let connection: HTTP1WebSocketUpgradeChannel
    private let headTimeout: TimeAmount?

    init(connection: HTTP1WebSocketUpgradeChannel, headTimeout: TimeAmount?) {
        self.connection = connection
        self.headTimeout = headTimeout
    }

    /// hummingbird-websocket's channel arms its idle timeout only after a whole request head that
    /// is not an upgrade: a connection that sends nothing, or half a head (slowloris), would stay
    /// open for ever. `RequestHeadDeadline` closes it unless a whole head arrives in time.
    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        if let headTimeout {
            do {
                try channel.pipeline.syncOperations.addHandler(RequestHeadDeadline(timeout: headTimeout), position: .first)
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        return connection.setup(channel: channel, logger: logger)
    }

    public func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await connection.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with WebSocket upgrades on the paths `webSocketRouter` holds, each connection's
    /// handling on its event loop.
    public static func eventLoopPinnedHTTP1WebSocketUpgrade<WebSocketRouter: HTTPResponderBuilder & SendableMetatype>(
        webSocketRouter: WebSocketRouter, configuration: HTTP1WebSocketUpgradeChannel.Configuration
    ) -> HTTPServerBuilder where WebSocketRouter.Responder.Context: WebSocketRequestContext {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            EventLoopPinnedWebSocketUpgradeChannel(
                connection: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                headTimeout: configuration.http1.idleTimeout)
        }
    }
}

/// Closes a connection whose first request head (up to its blank line) has not arrived within
/// `timeout`, then steps aside: what comes after is the HTTP channel's (or the WebSocket's) to time.
final class RequestHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// The last bytes seen, so a blank line split across reads is still found.
    private var tail: [UInt8] = []

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let bytes = tail + (buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? [])
        let complete = bytes.count >= 4 && (0...(bytes.count - 4)).contains { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
        tail = Array(bytes.suffix(3))
        context.fireChannelRead(data)
        if complete {
            deadline?.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
