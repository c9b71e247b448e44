import Foundation
import HearthEvents
import HearthKafka
@testable import HearthStore
import Logging
import NIOCore
import PostgresNIO
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
                    pinned(try EventPublisher.plaintextMessage(for: before)), garbage,
                    pinned(try EventPublisher.plaintextMessage(for: tooNew)), pinned(try EventPublisher.plaintextMessage(for: after)),
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
                func parking(_ message: KafkaMessage) -> DeadLetterHeaders? { DeadLetterHeaders(headers: message.headers) }
                let households = parked.filter { parking($0)?.projection == "households" }
                #expect(households.count == 2)
                let garbageParked = households.first { parking($0)?.offset == reports[1].offset }
                #expect(garbageParked?.value == garbage.value)
                #expect(garbageParked.flatMap(parking)?.error.contains("malformed") == true)
                let tooNewParked = households.first { parking($0)?.offset == reports[2].offset }
                #expect(tooNewParked != nil)
                #expect(tooNewParked.flatMap(parking)?.error.contains("out of range") == true)
                #expect(tooNewParked.flatMap { header($0, "ce_type") } == "household.upserted", "original headers are kept")
                // The archive cannot store bytes that are not JSON either, and says so under its own name.
                #expect(parked.contains { parking($0)?.projection == "event_log" && $0.value == garbage.value })
            }
        }

        /// A parked event Kafka refuses as a dead letter (it fits the topic, but not with the error
        /// headers added) no longer wedges the projection: it is recorded in Postgres in the
        /// transaction that moves the offset past it, and the events after it are applied.
        @Test func aDeadLetterKafkaRefusesDoesNotHoldTheProjection() async throws {
            let after = HouseholdFixtures.event(name: "after the oversized poison")
            // Not JSON, and just under librdkafka's 1,000,000-byte message limit with its key and header.
            let oversized = KafkaOutgoingMessage(
                topic: Topic.households.name, key: Array("oversized".utf8), value: Array(repeating: UInt8(ascii: "x"), count: 999_800),
                headers: [KafkaHeader(key: "ce_type", string: "household.upserted")], partition: 0)
            var afterMessage = try EventPublisher.plaintextMessage(for: after)
            afterMessage.partition = 0

            try await ServiceProcess.with("gateway", environment: ["HEARTH_PROJECTION_MAX_ATTEMPTS": "2"]) { _ in
                let producer = try KafkaTestEnvironment.producer()
                let reports = try await producer.send([oversized, afterMessage])
                await producer.close()

                try await TestEnvironment.withPostgres { client in
                    let projected = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        try await HouseholdFixtures.projected([after.data.householdId], client: client).rows == 1
                    }
                    #expect(projected, "the event after the oversized poison is projected")
                    // The relay tried to publish it and recorded why Kafka refused.
                    let refused = try await KafkaTestEnvironment.eventually(timeout: .seconds(10)) {
                        let rows = try await client.query(
                            """
                            SELECT error, publish_attempts, last_publish_error, published_at IS NULL, octet_length(value)
                            FROM projection_dead_letters
                            WHERE projection = 'households' AND topic = 'households' AND partition = 0 AND "offset" = \(reports[0].offset)
                            """, logger: KafkaTestEnvironment.logger
                        ).decode((String, Int32, String?, Bool, Int32).self)
                        for try await (error, attempts, publishError, unpublished, length) in rows {
                            #expect(error.contains("malformed"))
                            #expect(length == 999_800, "the whole value is kept")
                            return attempts >= 1 && unpublished && (publishError ?? "").lowercased().contains("too large")
                        }
                        return false
                    }
                    #expect(refused, "the parked event is in Postgres with the relay's failure")
                }
            }
        }

        /// The relay publishes a parked row to `<topic>.dlq` with the original headers and where it
        /// came from, and gives up on a row Kafka keeps refusing after its bounded attempts.
        @Test func theRelayPublishesParkedRowsAndGivesUpAfterItsAttempts() async throws {
            let logger = KafkaTestEnvironment.logger
            let projection = KafkaTestEnvironment.uniqueName("relay_test")
            let dlq = KafkaTopicPartition(topic: Topic.households.deadLetter.name, partition: 0)
            let dlqStart = try await HouseholdFixtures.deadLetterEnd()[dlq]!
            try await TestEnvironment.withPostgres { client in
                try await MigrationRunner(client: client, logger: logger).apply([])
                let store = DeadLetterStore(projection: projection, logger: logger)
                let fine = KafkaMessage(
                    topic: Topic.households.name, partition: 3, offset: 41, key: Array("k".utf8), value: Array("{\"bad\":".utf8),
                    headers: [KafkaHeader(key: "ce_type", string: "household.upserted")])
                let huge = KafkaMessage(
                    topic: Topic.households.name, partition: 3, offset: 42, key: nil, value: Array(repeating: 0x61, count: 1_000_100), headers: [])
                try await client.withTransaction(logger: logger) { connection in
                    try await store.park(fine, reason: "malformed: unexpected end", on: connection)
                    try await store.park(huge, reason: "malformed: not JSON", on: connection)
                    // Parking a position twice keeps the first record.
                    try await store.park(fine, reason: "second reason", on: connection)
                }
                let producer = try KafkaTestEnvironment.producer()
                let relay = DeadLetterRelay(client: client, producer: producer, projections: [projection], options: .init(maxAttempts: 2), logger: logger)
                #expect(try await relay.relayOnce() == 1, "the fine row is published, the huge one refused")
                try await client.query(
                    "UPDATE projection_dead_letters SET next_attempt_at = now() WHERE projection = \(projection)", logger: logger)
                #expect(try await relay.relayOnce() == 0)
                #expect(try await relay.relayOnce() == 0, "nothing is due once the huge row has used its attempts")
                await producer.close()

                var rows: [Int64: (attempts: Int32, published: Bool, givenUp: Bool)] = [:]
                for try await (offset, attempts, published, givenUp) in try await client.query(
                    """
                    SELECT "offset", publish_attempts, published_at IS NOT NULL, next_attempt_at = 'infinity'::timestamptz
                    FROM projection_dead_letters WHERE projection = \(projection)
                    """, logger: logger
                ).decode((Int64, Int32, Bool, Bool).self) {
                    rows[offset] = (attempts, published, givenUp)
                }
                #expect(rows[41]?.published == true)
                #expect(rows[42]?.published == false)
                #expect(rows[42]?.attempts == 2)
                #expect(rows[42]?.givenUp == true)

                let admin = KafkaAdmin(bootstrapServers: try KafkaTestEnvironment.bootstrap(), logger: logger)
                let end = try await admin.watermarks(dlq).high
                var relayed: [KafkaMessage] = []
                for try await message in KafkaRangeReader(bootstrapServers: try KafkaTestEnvironment.bootstrap(), ranges: [dlq: dlqStart..<end], logger: logger) {
                    if DeadLetterHeaders(headers: message.headers)?.projection == projection { relayed.append(message) }
                }
                #expect(relayed.count == 1)
                func header(_ key: String) -> String? { relayed.first?.header(key).map { String(decoding: $0, as: UTF8.self) } }
                #expect(relayed.first?.value == fine.value)
                #expect(relayed.first.flatMap { DeadLetterHeaders(headers: $0.headers) }
                    == DeadLetterHeaders(error: "malformed: unexpected end", projection: projection, topic: "households", partition: 3, offset: 41))
                #expect(header("ce_type") == "household.upserted")
                try await client.query("DELETE FROM projection_dead_letters WHERE projection = \(projection)", logger: logger)
            }
        }
    }
}
