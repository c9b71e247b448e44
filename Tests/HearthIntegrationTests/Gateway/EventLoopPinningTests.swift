@testable import HearthRuntime
import NIOCore
import NIOPosix
import Testing

/// The executor the gateway's HTTP connections prefer: their work stays on the connection's event
/// loop across suspensions, and work that asks for the global pool leaves it.
@Suite struct EventLoopPinning {
    @Test func aTaskPreferringTheExecutorRunsOnItsLoopAndComesBackThereAfterEveryAwait() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let other = group.next()
        #expect(loop !== other)
        let observed = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            var onLoop = [loop.inEventLoop]
            // Resumed by another thread: the other loop completes the future.
            _ = try? await other.scheduleTask(in: .milliseconds(5)) { 42 }.futureResult.get()
            onLoop.append(loop.inEventLoop)
            try? await Task.sleep(for: .milliseconds(2))
            onLoop.append(loop.inEventLoop)
            let inPool = await withTaskExecutorPreference(globalConcurrentExecutor) { loop.inEventLoop }
            onLoop.append(!inPool)
            onLoop.append(loop.inEventLoop)
            return onLoop
        }
        #expect(observed == [true, true, true, true, true])
        #expect(!loop.inEventLoop)
        try await group.shutdownGracefully()
    }
}
