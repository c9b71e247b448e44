import Foundation
@testable import HearthKafka
import HearthRuntime
import Testing

/// A producer librdkafka declared fatal (an idempotent producer that lost its sequence state)
/// fails every send from then on: `/readyz` must say so instead of staying green.
@Suite struct ProducerReadinessTests {
    @Test func aFatalProducerMakesTheServiceNotReady() async throws {
        let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-fatal")
        try await TestEnvironment.withPostgres { client in
            let gate = StartupGate()
            gate.open()
            let readiness = Readiness(
                client: client, admin: KafkaAdmin(bootstrapServers: try KafkaTestEnvironment.bootstrap(), logger: TestEnvironment.logger),
                gate: gate, runners: [], producer: producer, logger: TestEnvironment.logger)
            // Only the producer's check: the others depend on how busy the machine is.
            let before = await readiness.check()
            #expect(before.checks["kafka_producer"] == "ok", "\(before.checks)")
            producer.raiseFatalErrorForTesting("test: idempotence state lost")
            let fatal = await KafkaTestEnvironment.eventually(timeout: .seconds(10)) { producer.fatalError != nil }
            #expect(fatal)
            let after = await readiness.check()
            #expect(!after.ready && after.checks["kafka_producer"] == "fatal", "\(after.checks)")
        }
        await producer.close()
    }
}
