import Synchronization

/// The outcome of one produced message. Passed to librdkafka as a retained `Unmanaged` message
/// opaque (C callbacks cannot capture), and released exactly once: by the delivery-report
/// callback, or by the producer when the enqueue itself fails.
final class DeliveryPromise: Sendable {
    private let state = Mutex<State>(.pending(nil))

    private enum State {
        case pending(CheckedContinuation<KafkaDeliveryReport, any Error>?)
        case done(Result<KafkaDeliveryReport, KafkaError>)
    }

    func complete(_ result: Result<KafkaDeliveryReport, KafkaError>) {
        let waiter: CheckedContinuation<KafkaDeliveryReport, any Error>? = state.withLock { state in
            guard case .pending(let waiter) = state else { return nil }
            state = .done(result)
            return waiter
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    /// One awaiting task per promise; the producer never hands a promise to two.
    func value() async throws -> KafkaDeliveryReport {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<KafkaDeliveryReport, KafkaError>? = state.withLock { state in
                switch state {
                case .pending:
                    state = .pending(continuation)
                    return nil
                case .done(let result):
                    return result
                }
            }
            if let result { continuation.resume(with: result.mapError { $0 as any Error }) }
        }
    }
}
