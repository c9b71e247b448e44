import HearthEvents
import HearthKafka
@testable import HearthStore
import Testing

/// What a replay leaves out: events the live runner parked, including the ones it parked while
/// the rebuild ran (re-read before the swap).
@Suite struct SkipCounterTests {
    static func position(_ offset: Int64, partition: Int32 = 0) -> EventPosition {
        EventPosition(topic: "households", partition: partition, offset: offset)
    }

    @Test func positionsParkedDuringTheRebuildAreLeftOutOfTheCatchUpOrReportedWhenAlreadyApplied() throws {
        let counter = SkipCounter(parked: [Self.position(3)])
        let reached = [KafkaTopicPartition(topic: "households", partition: 0): Int64(10)]
        // 12 is beyond what the rebuild applied: the catch-up leaves it out. 7 was applied already.
        let applied = counter.addParked([Self.position(3), Self.position(7), Self.position(12), Self.position(2, partition: 1)], reached: reached)
        #expect(applied == [Self.position(7)])
        var decoded = 0
        for offset: Int64 in [3, 12] {
            #expect(try counter.decoding(Self.position(offset)) { decoded += 1; return nil } == nil)
        }
        #expect(try counter.decoding(Self.position(2, partition: 1)) { decoded += 1; return nil } == nil)
        #expect(decoded == 0, "a parked position must not be decoded")
        #expect(counter.count == 3)
        _ = try counter.decoding(Self.position(13)) { decoded += 1; return nil }
        #expect(decoded == 1)
    }
}
