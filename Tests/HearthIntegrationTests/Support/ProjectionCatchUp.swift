import Foundation
import HearthKafka
import HearthCtlCommands
import HearthStore
import PostgresNIO
import Testing

/// Waits for projections to apply everything their topics hold, so that a test can stop the
/// services and compare a rebuild with what they left.
enum ProjectionCatchUp {
    /// "projection topic/partition next < end" for each partition one of `projections` has not
    /// finished; empty when each has applied all its topics hold.
    static func behind(_ projections: [any Projection] = ReadModelCatalogue.allProjections, client: PostgresClient) async throws -> String {
        let admin = KafkaAdmin(bootstrapServers: try KafkaTestEnvironment.bootstrap(), logger: KafkaTestEnvironment.logger)
        let partitions = Set(projections.flatMap(\.topics)).flatMap { topic in
            (0..<Int32(topic.partitions)).map { KafkaTopicPartition(topic: topic.name, partition: $0) }
        }
        let ends = try await admin.watermarks(partitions)
        var applied: [String: Int64] = [:]
        let rows = try await client.query("SELECT projection, topic, partition, next_offset FROM projection_offsets", logger: TestEnvironment.logger)
        for try await (projection, topic, partition, next) in rows.decode((String, String, Int32, Int64).self) {
            applied["\(projection) \(topic)/\(partition)"] = next
        }
        var behind: [String] = []
        for projection in projections {
            for topic in projection.topics {
                for partition in 0..<Int32(topic.partitions) {
                    let end = ends[KafkaTopicPartition(topic: topic.name, partition: partition)]?.high ?? 0
                    let key = "\(projection.name) \(topic.name)/\(partition)"
                    if end > 0, applied[key] ?? 0 < end { behind.append("\(key) \(applied[key] ?? 0) < \(end)") }
                }
            }
        }
        return behind.joined(separator: ", ")
    }

    /// Fails the test unless, within `timeout`, `projections` are caught up twice in a row a
    /// second apart: a service reacting to an old event may still be writing new ones.
    static func require(_ projections: [any Projection] = ReadModelCatalogue.allProjections, timeout: Duration) async throws {
        try await TestEnvironment.withPostgres { client in
            let settled = try await KafkaTestEnvironment.eventually(timeout: timeout) {
                guard try await behind(projections, client: client).isEmpty else { return false }
                try await Task.sleep(for: .seconds(1))
                return try await behind(projections, client: client).isEmpty
            }
            let left = settled ? "" : try await behind(projections, client: client)
            try #require(settled, "projections still behind: \(left)")
        }
    }
}
