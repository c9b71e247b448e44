import Foundation

/// The hand-off between a poll thread and the tasks iterating a consumer. The poll thread blocks
/// in `push` while the buffer is full (back-pressure reaches librdkafka, which then stops
/// fetching once its own queue is full); readers suspend in `next` while it is empty.
///
/// `@unchecked Sendable`: every stored property is only touched while `condition` is locked.
/// An `NSCondition` rather than a `Mutex` because the poll thread must sleep until space frees up.
final class BoundedMessageBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    private var items: [KafkaMessage] = []
    private var head = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<KafkaMessage?, Never>)] = []
    private var nextWaiterId: UInt64 = 0
    private var finished = false
    private var failure: (any Error)?

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    private var count: Int { items.count - head }

    /// Blocking. Returns false if the message was not taken because the buffer finished or
    /// `shouldStop` became true while waiting for space.
    func push(_ message: KafkaMessage, shouldStop: () -> Bool) -> Bool {
        condition.lock()
        while true {
            if finished {
                condition.unlock()
                return false
            }
            if !waiters.isEmpty {
                let waiter = waiters.removeFirst()
                condition.unlock()
                waiter.continuation.resume(returning: message)
                return true
            }
            if count < capacity {
                items.append(message)
                condition.unlock()
                return true
            }
            if shouldStop() {
                condition.unlock()
                return false
            }
            // Timed so that a stop request is noticed even if nobody reads any more.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
    }

    /// Drops buffered messages that match, e.g. those of revoked partitions, which the new
    /// owner of the partition will deliver again.
    func removeAll(where predicate: (KafkaMessage) -> Bool) {
        condition.lock()
        defer { condition.unlock() }
        let kept = items[head...].filter { !predicate($0) }
        items = Array(kept)
        head = 0
        condition.broadcast()
    }

    /// Ends the sequence once the buffered messages are read; `error` is thrown after them.
    func finish(error: (any Error)? = nil) {
        condition.lock()
        guard !finished else {
            condition.unlock()
            return
        }
        finished = true
        failure = error
        // Waiters exist only while the buffer is empty, so they can end right away.
        let waiting = waiters
        waiters.removeAll()
        condition.broadcast()
        condition.unlock()
        for waiter in waiting { waiter.continuation.resume(returning: nil) }
    }

    func next() async throws -> KafkaMessage? {
        switch try takeIfReady() {
        case .message(let message): return message
        case .ended: return nil
        case .wait: break
        }
        let id = makeWaiterId()
        let message = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<KafkaMessage?, Never>) in
                condition.lock()
                if count > 0 {
                    let message = popLocked()
                    condition.unlock()
                    continuation.resume(returning: message)
                } else if finished || Task.isCancelled {
                    condition.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiters.append((id, continuation))
                    condition.unlock()
                }
            }
        } onCancel: {
            condition.lock()
            let index = waiters.firstIndex { $0.id == id }
            let waiter = index.map { waiters.remove(at: $0) }
            condition.unlock()
            waiter?.continuation.resume(returning: nil)
        }
        if message == nil, !Task.isCancelled, let error = currentFailure() { throw error }
        return message
    }

    private func makeWaiterId() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        nextWaiterId += 1
        return nextWaiterId
    }

    private enum Readiness {
        case message(KafkaMessage)
        case ended
        case wait
    }

    private func takeIfReady() throws -> Readiness {
        condition.lock()
        defer { condition.unlock() }
        if count > 0 { return .message(popLocked()) }
        if finished {
            if let failure { throw failure }
            return .ended
        }
        return .wait
    }

    private func currentFailure() -> (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    private func popLocked() -> KafkaMessage {
        let wasFull = count >= capacity
        let message = items[head]
        head += 1
        if head > 4096, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        if wasFull { condition.signal() }
        return message
    }
}
