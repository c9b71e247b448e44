import HearthKafka
import HearthStore
import Testing

@Suite struct DeadLetterHeadersTests {
    let parking = DeadLetterHeaders(error: "malformed: unexpected end", projection: "households", topic: "households", partition: 3, offset: 41)

    @Test func whatTheRelayWritesReadsBackTheSame() {
        let own = [KafkaHeader(key: "ce_type", string: "household.upserted")]
        #expect(DeadLetterHeaders(headers: own + parking.kafkaHeaders) == parking)
    }

    @Test func theWireNamesStayWhatParkedMessagesAlreadyCarry() {
        #expect(parking.kafkaHeaders.map(\.key) == ["error", "failed_projection", "original_topic", "original_partition", "original_offset"])
        #expect(Set(parking.kafkaHeaders.map(\.key)) == DeadLetterHeaders.names)
    }

    @Test func aMessageWithoutEveryHeaderOrWithABadPositionIsNoParkedEvent() {
        #expect(DeadLetterHeaders(headers: Array(parking.kafkaHeaders.dropLast())) == nil)
        var headers = parking.kafkaHeaders
        headers[3] = KafkaHeader(key: DeadLetterHeaders.Name.partition, string: "three")
        #expect(DeadLetterHeaders(headers: headers) == nil)
    }

    @Test func aRedriveKeepsTheEventsOwnHeadersAndSaysWhereItCameFrom() {
        let own = KafkaHeader(key: "ce_type", string: "household.upserted")
        let parked = KafkaMessage(topic: "households.dlq", partition: 0, offset: 7, key: nil, value: [], headers: [own] + parking.kafkaHeaders)
        let headers = DeadLetterHeaders.redriveHeaders(of: parked)
        #expect(headers.map(\.key) == ["ce_type", DeadLetterHeaders.Name.redrivenFrom])
        #expect(headers.last.map { String(decoding: $0.value, as: UTF8.self) } == "households.dlq@7")
    }
}
