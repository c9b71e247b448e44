import Synchronization

/// Something that happens once (a handle closed, a loop ended) and that any number of tasks may
/// await, before or after it happened.
final class OneShotEvent<Value: Sendable>: Sendable {
    private let state = Mutex<State>(.pending([]))

    private enum State {
        case pending([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    /// Returns false if the event had already happened (the value is then ignored).
    @discardableResult
    func signal(_ value: Value) -> Bool {
        let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
            guard case .pending(let waiters) = state else { return nil }
            state = .done(value)
            return waiters
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    var value: Value? {
        state.withLock { state in
            if case .done(let value) = state { return value }
            return nil
        }
    }

    func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let value: Value? = state.withLock { state in
                switch state {
                case .pending(var waiters):
                    waiters.append(continuation)
                    state = .pending(waiters)
                    return nil
                case .done(let value):
                    return value
                }
            }
            if let value { continuation.resume(returning: value) }
        }
    }
}

extension OneShotEvent where Value == Void {
    @discardableResult
    func signal() -> Bool { signal(()) }
}
