import CRdKafka
import Foundation
import Synchronization

/// Owns one `rd_kafka_t` and makes its destruction safe against concurrent callers.
///
/// `@unchecked Sendable`: librdkafka handles are thread-safe for every call made through
/// `withLease`; the pointer never changes, and `destroy` first refuses new leases, then waits
/// for running ones to end, so no call can race `rd_kafka_destroy`.
final class RdKafkaHandle: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let state = Mutex(State())

    private struct State {
        var destroyed = false
        var leases = 0
    }

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Runs `body` with the live handle, or returns nil once destruction has begun. Keep `body`
    /// short: `destroy` waits for it.
    func withLease<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T? {
        let granted = state.withLock { state in
            guard !state.destroyed else { return false }
            state.leases += 1
            return true
        }
        guard granted else { return nil }
        defer { state.withLock { $0.leases -= 1 } }
        return try body(pointer)
    }

    /// The raw pointer for the thread that owns the handle's lifecycle (poll loops); they are
    /// the only callers of `destroy`, so the handle cannot disappear under them.
    var ownerPointer: OpaquePointer { pointer }

    var isDestroyed: Bool { state.withLock { $0.destroyed } }

    /// Blocking: call only from a dedicated thread. Idempotent.
    func destroy(flags: Int32 = 0) {
        let first = state.withLock { state in
            defer { state.destroyed = true }
            return !state.destroyed
        }
        guard first else { return }
        while state.withLock({ $0.leases }) > 0 {
            usleep(200)
        }
        rd_kafka_destroy_flags(pointer, flags)
    }
}
