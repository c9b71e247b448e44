import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import Testing

extension BackboneSuite {
    /// An event that cannot be decoded, and one whose apply throws, are parked in
    /// `households.dlq` with their reasons while the events after them are projected.
    @Suite struct DeadLetters {
        @Test func poisonEventsAreParkedAndTheRestProjected() async throws {
            let before = HouseholdFixtures.event(name: "before the poison")
            let after = HouseholdFixtures.event(name: "after the poison")
            let tooNew = HouseholdFixtures.event(version: 5_000_000_000)
            let dlq = KafkaTopicPartition(topic: Topic.households.deadLetter.name, partition: 0)
            let dlqStart = try await HouseholdFixtures.deadLetterEnd()[dlq]!
            // Everything on one partition, so "after" really comes after both poison events.
            func pinned(_ message: KafkaOutgoingMessage) -> KafkaOutgoingMessage {
                var message = message
                message.partition = 0
                return message
            }
            let garbage = KafkaOutgoingMessage(
                topic: Topic.households.name, key: Array("poison".utf8), value: Array("{this is not json".utf8),
                headers: [KafkaHeader(key: "ce_type", string: "household.upserted")], partition: 0)

            try await ServiceProcess.with("gateway", environment: ["HEARTH_PROJECTION_MAX_ATTEMPTS": "2"]) { _ in
                let producer = try KafkaTestEnvironment.producer()
                let reports = try await producer.send([
                    pinned(try EventPublisher.message(for: before)), garbage,
                    pinned(try EventPublisher.message(for: tooNew)), pinned(try EventPublisher.message(for: after)),
                ])
                await producer.close()

                try await TestEnvironment.withPostgres { client in
                    let projected = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        try await HouseholdFixtures.projected([before.data.householdId, after.data.householdId], client: client).rows == 2
                    }
                    #expect(projected, "the events around the poison are projected")
                    #expect(try await HouseholdFixtures.projected([tooNew.data.householdId], client: client).rows == 0)
                }

                let admin = KafkaAdmin(bootstrapServers: try KafkaTestEnvironment.bootstrap(), logger: KafkaTestEnvironment.logger)
                var parked: [KafkaMessage] = []
                _ = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                    try await admin.watermarks(dlq).high >= dlqStart + 3
                }
                let end = try await admin.watermarks(dlq).high
                for try await message in KafkaRangeReader(
                    bootstrapServers: try KafkaTestEnvironment.bootstrap(), ranges: [dlq: dlqStart..<end], logger: KafkaTestEnvironment.logger
                ) {
                    parked.append(message)
                }
                func header(_ message: KafkaMessage, _ key: String) -> String? {
                    message.header(key).map { String(decoding: $0, as: UTF8.self) }
                }
                let households = parked.filter { header($0, "failed_projection") == "households" }
                #expect(households.count == 2)
                let garbageParked = households.first { header($0, "original_offset") == String(reports[1].offset) }
                #expect(garbageParked?.value == garbage.value)
                #expect(garbageParked.flatMap { header($0, "original_offset") } == String(reports[1].offset))
                #expect(garbageParked.flatMap { header($0, "error") }?.contains("malformed") == true)
                let tooNewParked = households.first { header($0, "original_offset") == String(reports[2].offset) }
                #expect(tooNewParked.flatMap { header($0, "original_offset") } == String(reports[2].offset))
                #expect(tooNewParked.flatMap { header($0, "error") }?.contains("out of range") == true)
                #expect(tooNewParked.flatMap { header($0, "ce_type") } == "household.upserted", "original headers are kept")
                // The archive cannot store bytes that are not JSON either, and says so under its own name.
                #expect(parked.contains { header($0, "failed_projection") == "event_log" && $0.value == garbage.value })
            }
        }
    }
}
