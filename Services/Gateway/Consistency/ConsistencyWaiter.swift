import HearthStore
import Logging
import PostgresNIO

/// Makes a read wait until a projection has applied the event at a given position, so a client
/// that sends back the position it was given reads its own write.
struct ConsistencyWaiter: Sendable {
    let client: PostgresClient
    let logger: Logger
    var timeout: Duration = .seconds(5)

    /// True once `projection` has applied `position`; false when the timeout passed first.
    func wait(for position: EventPosition, projection: String) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if try await applied(position, projection: projection) { return true }
            if ContinuousClock.now + pause > deadline { return false }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    private func applied(_ position: EventPosition, projection: String) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT next_offset FROM projection_offsets
            WHERE projection = \(projection) AND topic = \(position.topic) AND partition = \(Int32(position.partition))
            """, logger: logger)
        for try await next in rows.decode(Int64.self) { return next > position.offset }
        return false
    }
}
