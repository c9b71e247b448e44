import Synchronization

/// Runs an operation but stops waiting for it after a limit. The operation is cancelled then, and
/// left to end on its own: an await that ignores cancellation (a query on a connection Postgres
/// dropped mid-restart, which PostgresNIO may never answer) cannot hold the caller for ever.
/// Only for operations that are safe to abandon: a projection's transaction is (its offsets'
/// compare-and-set refuses the retry or the abandoned one, whichever commits second).
public enum Deadline {
    public struct Exceeded: Error, CustomStringConvertible {
        public let limit: Duration
        public var description: String { "gave up waiting after \(limit)" }
    }

    public static func run<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        // The caller's cancellation ends the wait too (and is passed on to the operation).
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(
                    continuation,
                    work: Task {
                        let result: Result<T, any Error>
                        do { result = .success(try await operation()) } catch { result = .failure(error) }
                        race.finish(with: result)
                    },
                    timer: Task {
                        try await Task.sleep(for: limit)
                        race.finish(with: .failure(Exceeded(limit: limit)))
                    })
            }
        } onCancel: {
            race.finish(with: .failure(CancellationError()))
        }
    }

    /// The caller's continuation, resumed once, by the operation or by the timer, whichever ends
    /// first; the other is cancelled (a finished operation leaves no timer sleeping).
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var work: Task<Void, Never>?
            var timer: Task<Void, any Error>?
            var result: Result<T, any Error>?
        }
        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>, work: Task<Void, Never>, timer: Task<Void, any Error>) {
            let early = state.withLock { state -> Result<T, any Error>? in
                state.work = work
                state.timer = timer
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let early {
                work.cancel()
                timer.cancel()
                continuation.resume(with: early)
            }
        }

        func finish(with result: Result<T, any Error>) {
            let (continuation, work, timer) = state.withLock { state in
                if state.result == nil { state.result = result }
                defer { state.continuation = nil }
                return (state.continuation, state.work, state.timer)
            }
            guard let continuation else { return }
            work?.cancel()
            timer?.cancel()
            continuation.resume(with: result)
        }
    }
}
