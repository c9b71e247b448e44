import Foundation
import Hummingbird
import Logging

/// Writes one run's events to an HTTP response in order, from seq `after + 1` to `done`.
///
/// Sources, in order: what the read model already holds (replays and resumes), then the live
/// events the hub delivers. A gap between them (an event that went past the hub before the
/// subscription and was not yet projected when the backlog was read) is filled from the read
/// model as soon as it is projected, so no seq is ever skipped or sent twice.
struct RunStreamer: Sendable {
    let runs: RunReadModel
    /// A stream with no event for this long ends (the client can resume with `Last-Event-ID`).
    let idleTimeout: Duration
    /// How often an idle SSE stream gets a `: heartbeat` comment.
    let heartbeatInterval: Duration
    let logger: Logger

    /// How long a gap may take to appear in the read model before it is given up on.
    static let gapTimeout = Duration.seconds(5)

    func stream(
        runId: UUID, subscription: RunSubscription?, backlog: [RunStreamEventText], after: Int,
        format: RunStreamFormat, writer: inout any ResponseBodyWriter
    ) async throws {
        let runKey = runId.uuidString.lowercased()
        var next = after + 1
        defer { subscription?.finish() }

        for event in backlog where event.seq >= next {
            try await writer.write(format.frame(event, runId: runKey))
            next = event.seq + 1
            if event.event == "done" { return }
        }
        guard let subscription else { return }

        let interval = heartbeatInterval
        let ticker = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                subscription.continuation.yield(.heartbeat)
            }
        }
        defer { ticker.cancel() }
        var idleSince = ContinuousClock.now
        for await item in subscription.stream {
            switch item {
            case .heartbeat:
                if ContinuousClock.now - idleSince >= idleTimeout {
                    logger.info("run stream idle, closing", metadata: ["run_id": "\(runKey)", "next_seq": "\(next)"])
                    return
                }
                if let heartbeat = format.heartbeat { try await writer.write(heartbeat) }
            case .event(let event):
                guard event.seq >= next else { continue }
                idleSince = ContinuousClock.now
                if event.seq > next {
                    for missing in try await fill(runId, from: next, through: event.seq - 1) {
                        try await writer.write(format.frame(missing, runId: runKey))
                    }
                }
                try await writer.write(format.frame(event, runId: runKey))
                next = event.seq + 1
                if event.event == "done" { return }
            }
        }
    }

    /// Events `from...through`, waiting (briefly) for the projection to catch up with them.
    private func fill(_ runId: UUID, from: Int, through: Int) async throws -> [RunStreamEventText] {
        let deadline = ContinuousClock.now + Self.gapTimeout
        while true {
            let events = try await runs.events(of: runId, from: from, through: through)
            if events.count == through - from + 1 || ContinuousClock.now >= deadline {
                if events.count != through - from + 1 {
                    logger.warning("run stream gap not filled", metadata: [
                        "run_id": "\(runId.uuidString.lowercased())", "from": "\(from)", "through": "\(through)",
                    ])
                }
                return events
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
