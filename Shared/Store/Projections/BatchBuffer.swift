import Synchronization

/// A bounded hand-off between the task that reads Kafka and the task that applies batches: the
/// reader waits when it is full, the applier takes everything available at once.
final class BatchBuffer<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var head = 0
        var finished = false
        var waitingTaker: CheckedContinuation<Void, Never>?
        var waitingPutters: [CheckedContinuation<Void, Never>] = []
        var count: Int { items.count - head }
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Waits while the buffer is full. Returns false once the buffer was finished.
    func append(_ element: Element) async -> Bool {
        while true {
            let outcome: Bool? = state.withLock { state in
                if state.finished { return false }
                if state.count < capacity {
                    state.items.append(element)
                    let taker = state.waitingTaker
                    state.waitingTaker = nil
                    taker?.resume()
                    return true
                }
                return nil
            }
            if let outcome { return outcome }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.finished || state.count < capacity { return true }
                    state.waitingPutters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    func finish() {
        let (taker, putters) = state.withLock { state in
            state.finished = true
            defer {
                state.waitingTaker = nil
                state.waitingPutters = []
            }
            return (state.waitingTaker, state.waitingPutters)
        }
        taker?.resume()
        putters.forEach { $0.resume() }
    }

    /// Drops the waiting elements that match (a revoked partition's, which the next owner applies).
    func removeAll(where shouldRemove: (Element) -> Bool) {
        let putters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let kept = state.items[state.head...].filter { !shouldRemove($0) }
            state.items = Array(kept)
            state.head = 0
            defer { state.waitingPutters = [] }
            return state.waitingPutters
        }
        putters.forEach { $0.resume() }
    }

    /// Up to `max` elements; waits for the first, then up to `linger` for the batch to fill.
    /// Nil when finished and drained.
    func nextBatch(max: Int, linger: Duration) async -> [Element]? {
        guard await waitForElements() else { return nil }
        if linger > .zero, state.withLock({ $0.count < max && !$0.finished }) {
            try? await Task.sleep(for: linger)
        }
        let (batch, putters) = state.withLock { state -> ([Element], [CheckedContinuation<Void, Never>]) in
            let take = min(max, state.count)
            let batch = Array(state.items[state.head..<(state.head + take)])
            state.head += take
            if state.head > 4096, state.head * 2 > state.items.count {
                state.items.removeFirst(state.head)
                state.head = 0
            }
            defer { state.waitingPutters = [] }
            return (batch, state.waitingPutters)
        }
        putters.forEach { $0.resume() }
        return batch
    }

    /// True when elements are available, false when finished and empty.
    private func waitForElements() async -> Bool {
        while true {
            let ready: Bool? = state.withLock { state in
                if state.count > 0 { return true }
                if state.finished { return false }
                return nil
            }
            if let ready { return ready }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.count > 0 || state.finished { return true }
                    state.waitingTaker = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }
}
