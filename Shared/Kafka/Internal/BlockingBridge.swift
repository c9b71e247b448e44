import Dispatch
import Synchronization

/// Lets a librdkafka callback, which runs on a poll thread and must return a result, call async
/// Swift code: the poll thread (never a cooperative-pool thread) blocks until the task is done.
enum BlockingBridge {
    static func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            box.result.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return box.result.withLock { $0! }
    }

    private final class ResultBox<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
    }
}
