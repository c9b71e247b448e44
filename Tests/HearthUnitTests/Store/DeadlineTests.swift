import HearthStore
import Synchronization
import Testing

@Suite struct DeadlineTests {
    /// A continuation nobody resumes until the test says so: an await that ignores cancellation.
    final class Gate: Sendable {
        private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
        func wait() async { await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } } }
        func open() { waiting.withLock { $0.take() }?.resume() }
    }

    @Test func anOperationThatFinishesInTimeGivesItsResult() async throws {
        #expect(try await Deadline.run(.seconds(5)) { 42 } == 42)
        await #expect(throws: CancellationError.self) {
            try await Deadline.run(.seconds(5)) { throw CancellationError() }
        }
    }

    @Test func anOperationThatIgnoresCancellationIsAbandonedAtTheLimit() async throws {
        let gate = Gate()
        let started = ContinuousClock.now
        await #expect(throws: Deadline.Exceeded.self) {
            try await Deadline.run(.milliseconds(200)) { await gate.wait() }
        }
        // Not a timing test: only that the wait ended (the operation never would) and not early.
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        gate.open()
    }
}
