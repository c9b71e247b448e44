@testable import HearthKafka
import Testing

@Suite struct BoundedMessageBufferTests {
    func message(_ offset: Int64, bytes: Int) -> KafkaMessage {
        KafkaMessage(topic: "t", partition: 0, offset: offset, key: nil, value: Array(repeating: 1, count: bytes))
    }

    @Test func fullByCountPausesAndHalfEmptyResumes() async throws {
        let buffer = BoundedMessageBuffer(capacity: 4)
        for offset in 0..<4 { #expect(buffer.push(message(Int64(offset), bytes: 1))) }
        #expect(buffer.isFull)
        #expect(!buffer.hasRoom)
        #expect(buffer.push(message(4, bytes: 1)), "the poll thread's push never waits, even when full")
        _ = try await buffer.next()
        #expect(buffer.isFull, "4 of 4 still held")
        _ = try await buffer.next()
        #expect(!buffer.isFull)
        #expect(!buffer.hasRoom, "3 of 4: above half, a paused consumer stays paused")
        _ = try await buffer.next()
        #expect(buffer.hasRoom, "2 of 4: at half")
    }

    @Test func fullByBytesCountsKeysValuesAndHeaders() async throws {
        let buffer = BoundedMessageBuffer(capacity: 1000, byteCapacity: 100)
        var withHeader = message(0, bytes: 40)
        withHeader.key = Array(repeating: 2, count: 5)
        withHeader.headers = [KafkaHeader(key: "abc", value: [1, 2])]
        #expect(BoundedMessageBuffer.size(of: withHeader) == 50)
        _ = buffer.push(withHeader)
        #expect(!buffer.isFull)
        _ = buffer.push(message(1, bytes: 50))
        #expect(buffer.isFull, "100 bytes held")
        _ = try await buffer.next()
        #expect(buffer.hasRoom, "50 bytes held: at half")
        buffer.removeAll { _ in true }
        _ = buffer.push(message(2, bytes: 60))
        #expect(!buffer.hasRoom, "removal recounted the bytes: 60 held")
    }

    @Test func anEmptyValueHasABaseAddressSoItIsNoTombstone() {
        let pointer = KafkaProducer.withNonNullBytes([]) { $0.baseAddress }
        #expect(pointer != nil)
        #expect(KafkaProducer.withNonNullBytes([]) { $0.count } == 0)
        #expect(KafkaProducer.withNonNullBytes([7, 8]) { Array($0) } == [7, 8])
    }
}
