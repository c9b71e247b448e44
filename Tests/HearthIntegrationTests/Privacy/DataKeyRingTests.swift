import Crypto
import Foundation
import HearthPrivacy
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The data key ring against real Postgres: what one process learns by opening a subject's
    /// key, it seals with, and erasure takes it back.
    @Suite struct DataKeyRingCaching {
        @Test func aKeyOpenedIsTheSubjectsSealingKeyUntilTheSubjectIsDestroyed() async throws {
            try await TestEnvironment.withPostgres { client in
                try await client.query(PostgresQuery(unsafeSQL: DataKeyRing.tableSQL), logger: TestEnvironment.logger)
                try await client.query(PostgresQuery(unsafeSQL: DataKeyRing.indexSQL), logger: TestEnvironment.logger)
                let master = MasterKey(key: SymmetricKey(size: .bits256))
                let subject = "run:\(UUID().uuidString.lowercased())"
                // The gateway makes the run's key when it seals the request.
                let writer = DataKeyRing(client: client, wrapping: master, logger: TestEnvironment.logger)
                let made = try await writer.sealingKey(for: subject)

                // The orchestrator opens the request: it loads the key by id…
                let reader = DataKeyRing(client: client, wrapping: master, logger: TestEnvironment.logger)
                try await reader.load([made.id])
                // …and with the row gone from the table, it still seals the run's events with that
                // key: it did not ask Postgres again (which would have made a new one).
                try await client.query("DELETE FROM data_keys WHERE key_id = \(made.id)", logger: TestEnvironment.logger)
                let sealing = try await reader.sealingKey(for: subject)
                #expect(sealing.id == made.id)
                #expect(sealing.key == made.key)

                // Destroying the subject drops what the opening taught: the next sealing key is new.
                try await reader.destroy(subjects: [subject], because: "test")
                let after = try await reader.sealingKey(for: subject)
                #expect(after.id != made.id)
                if case .gone? = reader.openingKey(made.id) {} else { Issue.record("the destroyed key still opens") }
                try await client.query("DELETE FROM data_keys WHERE subject = \(subject)", logger: TestEnvironment.logger)
            }
        }
    }
}
