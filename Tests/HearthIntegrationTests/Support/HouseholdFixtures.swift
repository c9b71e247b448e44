import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import PostgresNIO

/// Household events made directly (not through HTTP), for tests that need many of them fast.
enum HouseholdFixtures {
    static func event(id: UUID = UUID(), version: Int = 1, name: String? = nil, listEntry: String = "x", listSize: Int = 1) -> Envelope<HouseholdUpserted> {
        let list = (0..<listSize).map { "\(listEntry)-\($0)" }
        let payload = HouseholdUpserted(
            householdId: id, householdVersion: version, name: name,
            prefs: HouseholdPrefs(adults: 2, kidsAges: [Int.random(in: 0...12)], allergies: list, cuisines: list), userId: nil)
        return Envelope(payload, correlationId: "test-\(UUID().uuidString.prefix(8))", source: "tests")
    }

    /// Publishes in order and waits for every acknowledgement.
    static func publish(_ envelopes: [Envelope<HouseholdUpserted>]) async throws -> [EventPosition] {
        let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-households")
        let publisher = EventPublisher(producer: producer, source: "tests", keys: nil)
        var positions: [EventPosition] = []
        do {
            for chunk in stride(from: 0, to: envelopes.count, by: 500) {
                positions += try await publisher.publish(batch: Array(envelopes[chunk..<min(chunk + 500, envelopes.count)]))
            }
        } catch {
            await producer.close()
            throw error
        }
        await producer.close()
        return positions
    }

    /// How many of these households the read model holds, and the sum of their `changes`.
    static func projected(_ ids: [UUID], client: PostgresClient) async throws -> (rows: Int, changes: Int) {
        let rows = try await client.query(
            "SELECT count(*)::bigint, coalesce(sum(changes), 0)::bigint FROM households WHERE household_id = ANY(\(ids))",
            logger: TestEnvironment.logger)
        for try await (count, changes) in rows.decode((Int64, Int64).self) { return (Int(count), Int(changes)) }
        return (0, 0)
    }

    /// How many archive rows these event ids have, and how many distinct ones.
    static func archived(_ eventIds: [UUID], client: PostgresClient) async throws -> (rows: Int, distinct: Int) {
        let rows = try await client.query(
            "SELECT count(*)::bigint, count(DISTINCT event_id)::bigint FROM event_log WHERE event_id = ANY(\(eventIds))",
            logger: TestEnvironment.logger)
        for try await (count, distinct) in rows.decode((Int64, Int64).self) { return (Int(count), Int(distinct)) }
        return (0, 0)
    }

    static func deadLetterEnd() async throws -> [KafkaTopicPartition: Int64] {
        let admin = KafkaAdmin(bootstrapServers: try KafkaTestEnvironment.bootstrap(), logger: KafkaTestEnvironment.logger)
        let partition = KafkaTopicPartition(topic: Topic.households.deadLetter.name, partition: 0)
        return [partition: try await admin.watermarks(partition).high]
    }
}
