import NIOCore
import NIOPosix

/// Listens on the fixed, well-known port and hands each connection to a `ConnectionSniffer`.
/// The mock brokers listen on ephemeral ports, so this is what `bootstrap.servers` points at;
/// clients then reach the advertised brokers directly.
final class BootstrapForwarder {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    let port: Int

    init(port: Int, target: SocketAddress, control: ControlCommandHandler) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ConnectionSniffer(target: target, control: control))
                    }
                }
                .bind(host: "127.0.0.1", port: port)
                .wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.port = channel.localAddress?.port ?? port
    }

    /// Blocking; call from the main thread, never from the event loop.
    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}
