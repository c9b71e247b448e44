import Foundation
@testable import HearthKnowledge
import Synchronization
import Testing

/// An embedder whose passes wait until the test lets them finish. Each text is a number, and its
/// vector is that number, so a caller can tell its own answer from another's.
private final class GatedEmbedder: EmbeddingProvider {
    let model = EmbeddingModel(name: "gated", dimension: 1)
    private struct State {
        var passes: [[String]] = []
        var held: [CheckedContinuation<Void, Never>] = []
        var open = false
        var inFlight = 0
        var mostInFlight = 0
    }
    private let state = Mutex(State())

    init(open: Bool = false) { state.withLock { $0.open = open } }

    var passes: [[String]] { state.withLock { $0.passes } }
    var held: Int { state.withLock { $0.held.count } }
    var mostInFlight: Int { state.withLock { $0.mostInFlight } }

    func embed(_ texts: [String]) async throws -> [[Float]] {
        await withCheckedContinuation { continuation in
            let runs = state.withLock { state in
                state.passes.append(texts)
                state.inFlight += 1
                state.mostInFlight = max(state.mostInFlight, state.inFlight)
                if state.open { return true }
                state.held.append(continuation)
                return false
            }
            if runs { continuation.resume() }
        }
        // Yield so that passes started together overlap even when they are let through at once.
        await Task.yield()
        state.withLock { $0.inFlight -= 1 }
        if texts.contains("bad") { throw EmbeddingProviderError("cannot embed bad", retriable: false) }
        return texts.map { [Float($0) ?? -1] }
    }

    /// Lets the passes waiting now finish.
    func release() {
        let held = state.withLock { state in
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Lets every pass, now and later, run through.
    func openForGood() {
        state.withLock { $0.open = true }
        release()
    }
}

private struct ConditionNeverHeld: Error {}

/// Waits (up to 5 s) until `condition` holds.
private func eventually(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw ConditionNeverHeld() }
        try await Task.sleep(for: .milliseconds(1))
    }
}

@Suite struct CoalescingEmbeddingProviderTests {
    @Test func anIdleCallRunsAloneAtOnce() async throws {
        let inner = GatedEmbedder(open: true)
        let provider = CoalescingEmbeddingProvider(inner, maxConcurrentBatches: 1)
        #expect(try await provider.embed(["7", "8"]) == [[7], [8]])
        #expect(inner.passes == [["7", "8"]])
        #expect(provider.statistics == (passes: 1, calls: 1))
        #expect(try await provider.embed([]) == [])
        #expect(inner.passes.count == 1)
    }

    @Test func callsArrivingWhileEveryPassIsBusyShareTheNextPass() async throws {
        let inner = GatedEmbedder()
        let provider = CoalescingEmbeddingProvider(inner, maxConcurrentBatches: 1)
        try await withThrowingTaskGroup(of: (Int, [[Float]]).self) { group in
            defer { inner.openForGood() }  // a failed wait must end the test, not hang it
            group.addTask { (1, try await provider.embed(["1"])) }
            try await eventually { inner.held == 1 }
            let waiting: [[String]] = [["2"], ["3", "4"], ["5"], ["6"]]
            for (index, texts) in waiting.enumerated() {
                group.addTask { (index + 2, try await provider.embed(texts)) }
            }
            try await eventually { provider.waitingCalls == 4 }
            #expect(inner.passes.count == 1)  // nobody overtook the busy pass
            inner.openForGood()
            var answers: [Int: [[Float]]] = [:]
            for try await (caller, vectors) in group { answers[caller] = vectors }
            #expect(answers == [1: [[1]], 2: [[2]], 3: [[3], [4]], 4: [[5]], 5: [[6]]])
        }
        #expect(inner.passes.count == 2)
        #expect(Set(inner.passes[1]) == ["2", "3", "4", "5", "6"])
        #expect(provider.statistics == (passes: 2, calls: 5))
    }

    @Test func aPassTakesWaitingCallsOnlyUpToTheTextLimit() async throws {
        let inner = GatedEmbedder()
        let provider = CoalescingEmbeddingProvider(inner, maxConcurrentBatches: 1, maxTextsPerBatch: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { inner.openForGood() }
            group.addTask { _ = try await provider.embed(["0"]) }
            try await eventually { inner.held == 1 }
            // Queued one at a time, so the order of the queue is known.
            for (count, texts) in [["1"], ["2"], ["3"], ["4", "5"], ["6", "7", "8", "9"]].enumerated() {
                group.addTask { _ = try await provider.embed(texts) }
                try await eventually { provider.waitingCalls == count + 1 }
            }
            inner.openForGood()
            try await group.waitForAll()
        }
        // Oldest first; a call larger than the limit still gets a pass of its own.
        #expect(inner.passes == [["0"], ["1", "2", "3"], ["4", "5"], ["6", "7", "8", "9"]])
    }

    @Test func noMoreThanTheAllowedPassesRunAtOnce() async throws {
        let inner = GatedEmbedder(open: true)
        let provider = CoalescingEmbeddingProvider(inner, maxConcurrentBatches: 2)
        let answers = try await withThrowingTaskGroup(of: (Int, [[Float]]).self) { group in
            for caller in 0..<200 { group.addTask { (caller, try await provider.embed([String(caller)])) } }
            var answers: [Int: [[Float]]] = [:]
            for try await (caller, vectors) in group { answers[caller] = vectors }
            return answers
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0.value == [[Float($0.key)]] })
        #expect(inner.mostInFlight <= 2)
        #expect(inner.passes.flatMap { $0 }.count == 200)
        #expect(provider.statistics.calls == 200)
        #expect(provider.statistics.passes == inner.passes.count)
    }

    @Test func aFailedPassFailsItsCallersAndFreesItsSlot() async throws {
        let inner = GatedEmbedder()
        let provider = CoalescingEmbeddingProvider(inner, maxConcurrentBatches: 1)
        try await withThrowingTaskGroup(of: Result<[[Float]], EmbeddingProviderError>.self) { group in
            defer { inner.openForGood() }
            group.addTask { .success(try await provider.embed(["1"])) }
            try await eventually { inner.held == 1 }
            for texts in [["bad"], ["2"]] {
                group.addTask {
                    do { return .success(try await provider.embed(texts)) } catch let error as EmbeddingProviderError { return .failure(error) }
                }
            }
            try await eventually { provider.waitingCalls == 2 }
            inner.openForGood()
            var failures = 0
            var successes = 0
            for try await result in group {
                switch result {
                case .success: successes += 1
                case .failure(let error): failures += 1; #expect(error.message == "cannot embed bad")
                }
            }
            // The bad text and the good one shared a pass: both callers get its error.
            #expect(successes == 1 && failures == 2)
        }
        #expect(try await provider.embed(["3"]) == [[3]])
        #expect(inner.passes.last == ["3"])
    }
}
