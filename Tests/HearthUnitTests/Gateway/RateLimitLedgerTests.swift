import Foundation
import HearthDomain
import Testing

@Suite struct RateLimitLedgerTests {
    let window = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func ownHitsCountAtOnceWithoutAFlush() {
        let ledger = RateLimitLedger()
        let counts = (1...5).map { _ in ledger.hit(["api:a"], windowStart: window)["api:a"] }
        #expect(counts == [1, 2, 3, 4, 5])
        #expect(ledger.hit(["api:b"], windowStart: window)["api:b"] == 1)
        #expect(ledger.hit(["api:a"], windowStart: window.addingTimeInterval(60))["api:a"] == 1, "a new window starts at zero")
    }

    @Test func aFlushAddsOtherInstancesHitsAndKeepsHitsMadeMeanwhile() {
        let ledger = RateLimitLedger()
        for _ in 0..<3 { _ = ledger.hit(["api:a"], windowStart: window) }
        let batch = ledger.takeBatch()
        let key = RateLimitLedger.WindowKey(bucket: "api:a", windowStart: window)
        #expect(batch.hits == [key: 3])
        // Counted while the batch is on its way: neither lost nor counted twice.
        #expect(ledger.hit(["api:a"], windowStart: window)["api:a"] == 4)
        // The store now holds 3 of ours + 10 from another instance.
        ledger.finish(batch, sharedTotals: [key: 13])
        #expect(ledger.hit(["api:a"], windowStart: window)["api:a"] == 15)
        #expect(ledger.takeBatch().hits == [key: 2])
    }

    @Test func aFailedFlushSendsTheSameHitsNextTime() {
        let ledger = RateLimitLedger()
        for _ in 0..<4 { _ = ledger.hit(["api:a", "auth:a"], windowStart: window) }
        let first = ledger.takeBatch()
        ledger.abandon(first)
        #expect(ledger.hit(["api:a"], windowStart: window)["api:a"] == 5)
        let second = ledger.takeBatch()
        #expect(second.hits[.init(bucket: "api:a", windowStart: window)] == 5)
        #expect(second.hits[.init(bucket: "auth:a", windowStart: window)] == 4)
        #expect(ledger.takeBatch().hits.isEmpty)
    }

    @Test func oldWindowsAreForgotten() {
        let ledger = RateLimitLedger()
        _ = ledger.hit(["api:a"], windowStart: window)
        _ = ledger.hit(["api:a"], windowStart: window.addingTimeInterval(600))
        ledger.forget(before: window.addingTimeInterval(300))
        #expect(ledger.windowCount == 1)
    }

    @Test func concurrentHitsAreEachCountedOnce() async {
        let ledger = RateLimitLedger()
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 { group.addTask { ledger.hit(["api:a"], windowStart: self.window)["api:a"] ?? 0 } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.sorted() == Array(1...1_000))
    }
}
