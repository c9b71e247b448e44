import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// A producer upgraded before its consumers publishes a version this build does not know. The
    /// projection must not skip it (its offset would move past it, and the event would be lost
    /// until a replay): it holds the partition, `/readyz` says it is stuck, and a replay by this
    /// build refuses rather than leaving the event out. On a broker and database of its own, since
    /// the held partition stays held.
    @Suite struct NewerEventVersions {
        @Test func aNewerVersionIsHeldNotSkipped() async throws {
            try await IsolatedStack.with(prefix: "hearth_newer") { url, broker in
                let ownDatabase = try SeparateDatabase(url: url)
                let household = UUID()
                let current = HouseholdFixtures.event(id: household, version: 1)
                var newer = try EventPublisher.plaintextMessage(for: HouseholdFixtures.event(id: household, version: 2))
                let text = String(decoding: newer.value, as: UTF8.self)
                newer.value = Array(text.replacingOccurrences(of: #""version":\#(HouseholdUpserted.version)"#, with: #""version":99"#).utf8)
                newer.headers = newer.headers.map { $0.key == EventHeaders.version ? KafkaHeader(key: EventHeaders.version, string: "99") : $0 }
                let later = try EventPublisher.plaintextMessage(for: HouseholdFixtures.event(id: household, version: 3))
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(bootstrapServers: broker.bootstrap, clientId: "hearth-tests-newer"), logger: TestEnvironment.logger)
                let reports = try await producer.send([try EventPublisher.plaintextMessage(for: current), newer, later])
                await producer.close()

                let environment = ["HEARTH_DATABASE_URL": url, "HEARTH_KAFKA_BOOTSTRAP": broker.bootstrap, "HEARTH_PROJECTION_STUCK_SECONDS": "2"]
                try await ServiceProcess.with("gateway", environment: environment) { gateway in
                    let readyz = gateway.baseURL.appendingPathComponent("readyz")
                    let stuck = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        let (status, body) = try await HTTPTestClient.get(readyz)
                        return status == 503 && String(decoding: body, as: UTF8.self).contains(#""projection:households":"stuck""#)
                    }
                    #expect(stuck, "\(gateway.logTail())")
                    #expect(gateway.logTail(lines: .max).contains("newer than this build knows"))
                }
                // Held at the newer event: the one before applied, the one after not.
                let stored = try await ownDatabase.count(
                    "SELECT next_offset FROM projection_offsets WHERE projection = 'households' AND topic = 'households' AND partition = \(reports[1].partition)")
                #expect(Int64(stored) == reports[1].offset)
                #expect(try await ownDatabase.count("SELECT version FROM households WHERE household_id = '\(household.uuidString.lowercased())'") == 1)
                let replay = try await CommandLineTool.run(
                    ["replay", "households"], environment: ["HEARTH_DATABASE_URL": url, "HEARTH_KAFKA_BOOTSTRAP": broker.bootstrap])
                #expect(replay.status != 0 && replay.errors.contains("newer than this build knows"), "\(replay.output)\n\(replay.errors)")
                try await ownDatabase.close()
            }
        }
    }
}

extension BackboneSuite {
    /// A write waits for Kafka's acknowledgement; with the broker gone it must not hang for
    /// librdkafka's default five minutes: after `HEARTH_KAFKA_DELIVERY_TIMEOUT_MS` it answers 503
    /// `event_not_acknowledged` with `Retry-After`. On a broker and database of its own.
    @Suite struct UnacknowledgedWrites {
        @Test func aWriteKafkaDoesNotAcknowledgeAnswers503InsteadOfHanging() async throws {
            try await IsolatedStack.with(prefix: "hearth_unacked") { url, broker in
                let environment = [
                    "HEARTH_DATABASE_URL": url, "HEARTH_KAFKA_BOOTSTRAP": broker.bootstrap, "HEARTH_KAFKA_DELIVERY_TIMEOUT_MS": "2000",
                    "HEARTH_SHUTDOWN_TIMEOUT_S": "5",
                ]
                try await ServiceProcess.with("gateway", environment: environment) { gateway in
                    let user = try await GatewayUser.signIn(gateway)
                    broker.stop()
                    let started = ContinuousClock.now
                    let reply = try await HTTPTestClient.postJSON(
                        gateway.baseURL.appendingPathComponent("v1/households/upsert"), ["name": "Unacknowledged", "prefs": ["adults": 1]], headers: user.headers)
                    #expect(reply.status == 503 && reply.errorCode == "event_not_acknowledged", "\(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
                    #expect(reply.header("Retry-After") == "1")
                    #expect(ContinuousClock.now - started < .seconds(15))

                    // With the broker still away the gateway stops when told to, within its
                    // shutdown deadline, however librdkafka fares leaving its groups.
                    let stopping = ContinuousClock.now
                    await gateway.stop()
                    #expect(ContinuousClock.now - stopping < .seconds(20), "\(gateway.logTail())")
                }
            }
        }
    }
}
