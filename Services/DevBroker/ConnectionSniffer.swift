import HearthKafka
import NIOCore
import NIOPosix

/// First handler of every accepted connection: a connection that opens with the
/// `DevBrokerControl` prefix gets one command answered; any other is Kafka traffic and is
/// piped to the mock cluster's bootstrap broker.
final class ConnectionSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let target: SocketAddress
    private let control: ControlCommandHandler
    private var pending: ByteBuffer?
    private var mode = Mode.sniffing
    private static let prefix = Array(DevBrokerControl.prefix.utf8)

    private enum Mode {
        case sniffing
        case control
        case connecting
        case done
    }

    init(target: SocketAddress, control: ControlCommandHandler) {
        self.target = target
        self.control = control
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if pending == nil {
            pending = bytes
        } else {
            pending!.writeBuffer(&bytes)
        }
        switch mode {
        case .sniffing: sniff(context: context)
        case .control: answerIfComplete(context: context)
        case .connecting, .done: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        mode = .done
        context.fireChannelInactive()
    }

    private func sniff(context: ChannelHandlerContext) {
        guard let pending else { return }
        let seen = pending.readableBytesView.prefix(Self.prefix.count)
        guard seen.elementsEqual(Self.prefix.prefix(seen.count)) else {
            connectToBroker(context: context)
            return
        }
        guard seen.count == Self.prefix.count else { return }
        mode = .control
        answerIfComplete(context: context)
    }

    private func answerIfComplete(context: ChannelHandlerContext) {
        guard let pending else { return }
        let view = pending.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > DevBrokerControl.maxLineLength { reply(.error("line too long"), context: context) }
            return
        }
        let line = String(decoding: view[view.startIndex..<newline], as: UTF8.self)
        reply(control.handle(line: line), context: context)
    }

    private func reply(_ reply: DevBrokerControl.Reply, context: ChannelHandlerContext) {
        mode = .done
        let buffer = context.channel.allocator.buffer(string: reply.line)
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func connectToBroker(context: ChannelHandlerContext) {
        mode = .connecting
        // Hold incoming bytes back until the broker side exists.
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        ClientBootstrap(group: context.eventLoop)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .connect(to: target)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let broker):
                    self.glue(context: context, broker: broker)
                case .failure:
                    self.mode = .done
                    context.close(promise: nil)
                }
            }
    }

    private func glue(context: ChannelHandlerContext, broker: any Channel) {
        guard mode == .connecting, context.channel.isActive else {
            broker.close(promise: nil)
            return
        }
        mode = .done
        let (clientSide, brokerSide) = GlueHandler.matchedPair()
        do {
            try context.pipeline.syncOperations.addHandler(clientSide)
            try broker.pipeline.syncOperations.addHandler(brokerSide)
        } catch {
            broker.close(promise: nil)
            context.close(promise: nil)
            return
        }
        if let pending, pending.readableBytes > 0 {
            broker.writeAndFlush(pending, promise: nil)
        }
        pending = nil
        let channel = context.channel
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        // Reads now pass through the glue handler, which only reads while the broker keeps up.
        channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
        channel.read()
    }
}
