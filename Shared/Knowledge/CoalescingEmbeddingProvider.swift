import Foundation
import Synchronization

/// Lets concurrent `embed` calls share forward passes. At most `maxConcurrentBatches` passes run at
/// once (one per core suits MiniLM); a call arriving while they are all busy waits, and the next
/// free pass takes every call waiting by then, up to `maxTextsPerBatch` texts. An idle searcher
/// therefore embeds each query at once, alone, and a busy one in batches.
///
/// Why: a 10-token query alone keeps MiniLM's kernel waiting on its weights (each layer's panels
/// stream from cache for 10 rows); eight queries in one pass read them once. Measured on the bench
/// box: 730 queries/s alone, 1,110/s in batches of 16, on one core. MiniLM embeds a text to the
/// same bits alone or in any batch, so answers do not depend on what else was being searched.
public final class CoalescingEmbeddingProvider: EmbeddingProvider {
    public let inner: any EmbeddingProvider
    public let maxConcurrentBatches: Int
    public let maxTextsPerBatch: Int
    private let state = Mutex(State())

    private struct Waiting {
        let texts: [String]
        let continuation: CheckedContinuation<[[Float]], any Error>
    }

    private struct State {
        var running = 0
        var waiting: [Waiting] = []
        /// Passes begun, and the calls they served (for tests and diagnostics).
        var passes = 0
        var calls = 0

        mutating func beginPass(serving count: Int) {
            passes += 1
            calls += count
        }
    }

    public init(_ inner: any EmbeddingProvider, maxConcurrentBatches: Int = ProcessInfo.processInfo.activeProcessorCount, maxTextsPerBatch: Int = 32) {
        self.inner = inner
        self.maxConcurrentBatches = max(1, maxConcurrentBatches)
        self.maxTextsPerBatch = max(1, maxTextsPerBatch)
    }

    public var model: EmbeddingModel { inner.model }

    /// Forward passes run so far and the calls they answered (calls ≥ passes; equal when nothing
    /// was ever coalesced).
    public var statistics: (passes: Int, calls: Int) { state.withLock { ($0.passes, $0.calls) } }

    /// Calls waiting for a pass now.
    var waitingCalls: Int { state.withLock { $0.waiting.count } }

    public func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !texts.isEmpty else { return [] }
        let startsNow = state.withLock { state in
            guard state.running < maxConcurrentBatches else { return false }
            state.running += 1
            state.beginPass(serving: 1)
            return true
        }
        if startsNow {
            // The common idle case stays in the caller's task: no hand-off, no added latency.
            let result: Result<[[Float]], any Error>
            do { result = .success(try await inner.embed(texts)) } catch { result = .failure(error) }
            passOn()
            return try result.get()
        }
        return try await withCheckedThrowingContinuation { continuation in
            // Checked again under the same lock as the enqueue: a pass that ended since the check
            // above found no one waiting and freed its slot, which this call then takes.
            let startsNow = state.withLock { state in
                guard state.running < maxConcurrentBatches else {
                    state.waiting.append(Waiting(texts: texts, continuation: continuation))
                    return false
                }
                state.running += 1
                state.beginPass(serving: 1)
                return true
            }
            if startsNow { Task { await run([Waiting(texts: texts, continuation: continuation)]) } }
        }
    }

    /// After a pass: serves the calls that waited meanwhile, in a task of their own (the caller
    /// that ran the pass has its answer), or frees the slot.
    private func passOn() {
        if let next = takeNextBatch() { Task { await run(next) } }
    }

    /// Runs passes until no call is waiting.
    private func run(_ first: [Waiting]) async {
        var batch = first
        while true {
            let texts = batch.flatMap(\.texts)
            do {
                let vectors = try await inner.embed(texts)
                guard vectors.count == texts.count else {
                    throw EmbeddingProviderError("the embedder returned \(vectors.count) vectors for \(texts.count) texts", retriable: false)
                }
                var start = 0
                for call in batch {
                    call.continuation.resume(returning: Array(vectors[start..<start + call.texts.count]))
                    start += call.texts.count
                }
            } catch {
                for call in batch { call.continuation.resume(throwing: error) }
            }
            guard let next = takeNextBatch() else { return }
            batch = next
        }
    }

    /// The calls the next pass serves (oldest first, at least one, then as many as fit in
    /// `maxTextsPerBatch`), or nil after freeing the slot when none waits.
    private func takeNextBatch() -> [Waiting]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            var count = 0
            var texts = 0
            for call in state.waiting {
                if count > 0, texts + call.texts.count > maxTextsPerBatch { break }
                count += 1
                texts += call.texts.count
            }
            let batch = Array(state.waiting.prefix(count))
            state.waiting.removeFirst(count)
            state.beginPass(serving: batch.count)
            return batch
        }
    }
}
