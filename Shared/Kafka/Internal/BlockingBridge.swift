import Dispatch
import Synchronization

/// Lets a librdkafka callback, which runs on a poll thread and must return a result, call async
/// Swift code: the poll thread (never a cooperative-pool thread) blocks until the task is done.
enum BlockingBridge {
    /// How often a waiting poll thread looks at `stop`.
    static let stopCheckInterval: DispatchTimeInterval = .milliseconds(100)

    /// Waits for `operation`, or until `stop` is set: then the task is cancelled and the wait ends
    /// at once with `CancellationError`, so a handler stuck on a hung query (Postgres frozen) cannot
    /// hold the consumer's shutdown.
    static func wait<T: Sendable>(stop: StopFlag? = nil, _ operation: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            box.result.withLock { $0 = result }
            done.signal()
        }
        while done.wait(timeout: .now() + stopCheckInterval) == .timedOut {
            if stop?.isSet == true {
                task.cancel()
                return .failure(CancellationError())
            }
        }
        return box.result.withLock { $0! }
    }

    private final class ResultBox<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
    }
}
