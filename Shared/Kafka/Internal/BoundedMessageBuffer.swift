import Foundation

/// The hand-off between a poll thread and the tasks iterating a consumer. The poll thread never
/// waits here: it keeps polling (so rebalances and heartbeats are served however slow the
/// reader), and pauses fetching once the buffer holds `capacity` messages or `byteCapacity`
/// bytes (`isFull`), resuming below half of both (`hasRoom`). Readers suspend in `next` while
/// it is empty.
///
/// `@unchecked Sendable`: every stored property is only touched while `condition` is locked.
/// An `NSCondition` rather than a `Mutex` because `pushWaiting` sleeps until space frees up.
final class BoundedMessageBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    private let byteCapacity: Int
    private var items: [KafkaMessage] = []
    private var head = 0
    private var bytes = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<KafkaMessage?, Never>)] = []
    private var nextWaiterId: UInt64 = 0
    private var finished = false
    private var failure: (any Error)?

    init(capacity: Int, byteCapacity: Int = .max) {
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
    }

    private var count: Int { items.count - head }

    /// What a message costs the buffer: its key, value and headers.
    static func size(of message: KafkaMessage) -> Int {
        (message.key?.count ?? 0) + message.value.count + message.headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
    }

    /// At or above either bound: the poll thread should pause fetching.
    var isFull: Bool {
        condition.lock()
        defer { condition.unlock() }
        return count >= capacity || bytes >= byteCapacity
    }

    /// Below half of both bounds: a paused poll thread may resume fetching.
    var hasRoom: Bool {
        condition.lock()
        defer { condition.unlock() }
        return count <= capacity / 2 && bytes <= byteCapacity / 2
    }

    /// Never waits. Returns false if the buffer has finished.
    func push(_ message: KafkaMessage) -> Bool {
        condition.lock()
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
        items.append(message)
        bytes += Self.size(of: message)
        condition.unlock()
        return true
    }

    /// Waits while the buffer is full, then pushes: for readers that are no group member (the
    /// range reader), which nothing needs polled meanwhile. Returns false if the buffer finished
    /// or `shouldStop` became true while waiting.
    func pushWaiting(_ message: KafkaMessage, shouldStop: () -> Bool) -> Bool {
        condition.lock()
        while !finished, waiters.isEmpty, count >= capacity || bytes >= byteCapacity {
            if shouldStop() {
                condition.unlock()
                return false
            }
            // Timed so that a stop request is noticed even if nobody reads any more.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        condition.unlock()
        return push(message)
    }

    /// Drops buffered messages that match, e.g. those of revoked partitions, which the new
    /// owner of the partition will deliver again.
    func removeAll(where predicate: (KafkaMessage) -> Bool) {
        condition.lock()
        defer { condition.unlock() }
        let kept = items[head...].filter { !predicate($0) }
        items = Array(kept)
        head = 0
        bytes = items.reduce(0) { $0 + Self.size(of: $1) }
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
        let message = items[head]
        head += 1
        bytes -= Self.size(of: message)
        condition.signal()  // a `pushWaiting` caller may have room now
        if head > 4096, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return message
    }
}
