import Synchronization

/// When a streamed response last showed life, and whether the idle watchdog gave up on it. The
/// body reader touches it; the watchdog task reads it.
final class StreamProgress: Sendable {
    private struct State {
        var lastActivity: ContinuousClock.Instant
        /// The reader is handing text to the caller: time spent there is not the server's silence.
        var delivering = false
        var timedOut = false
    }

    private let state: Mutex<State>

    init() {
        state = Mutex(State(lastActivity: .now))
    }

    func touch() {
        state.withLock { $0.lastActivity = .now }
    }

    func beginDelivery() {
        state.withLock { $0.delivering = true }
    }

    func endDelivery() {
        state.withLock {
            $0.delivering = false
            $0.lastActivity = .now
        }
    }

    var idleFor: Duration {
        let (last, delivering) = state.withLock { ($0.lastActivity, $0.delivering) }
        return delivering ? .zero : .now - last
    }

    func markTimedOut() { state.withLock { $0.timedOut = true } }
    var timedOut: Bool { state.withLock { $0.timedOut } }
}
