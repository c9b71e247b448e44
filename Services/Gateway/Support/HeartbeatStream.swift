/// Drives a server-sent-event writer from a live stream, with heartbeats while it is idle.
enum HeartbeatStream {
    /// Calls `body` with each item of `items` in order, and with nil every `interval` (time for a
    /// heartbeat comment), until `items` ends or `body` throws (the client went away).
    static func forEach<Item: Sendable>(
        _ items: AsyncStream<Item>, heartbeat interval: Duration, _ body: (Item?) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            // One ordered sink fed by both sources, so the writer is only ever used from here.
            let (merged, sink) = AsyncStream<Item?>.makeStream()
            group.addTask {
                for await item in items { sink.yield(item) }
                sink.finish()
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    sink.yield(nil)
                }
            }
            for await item in merged { try await body(item) }
            group.cancelAll()
        }
    }
}
