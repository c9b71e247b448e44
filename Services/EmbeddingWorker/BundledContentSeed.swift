import Foundation
import HearthEvents
import HearthKafka
import HearthKnowledge
import HearthStore
import Logging
import PostgresNIO
import ServiceLifecycle

/// Once per start, after the migrations: a Hearth that has never seen any content (no document
/// in `content_documents` and nothing ever published to the `content` topic) publishes the
/// bundled knowledge articles and recipes, as `hearthctl ingest` would, so that a new install's
/// first search and the assistant's retrieval answer something. Anything on the topic, deletions
/// included, means someone has managed the content: then nothing is published. Two workers
/// starting at once may both publish; the projection skips a document whose content hash it
/// already has. `HEARTH_SEED_CONTENT=false` turns it off.
struct BundledContentSeed: Service {
    let client: PostgresClient
    let admin: KafkaAdmin
    let publisher: EventPublisher
    let logger: Logger

    func run() async throws {
        do {
            if let count = try await seedIfNew() {
                logger.info("content library was empty: published the bundled documents", metadata: ["documents": "\(count)", "topic": "\(Topic.content.name)"])
            } else {
                logger.info("content library already managed: nothing to publish")
            }
        } catch {
            // Not a reason to stop embedding: the operator can still run `hearthctl ingest`.
            logger.error("could not publish the bundled content library", metadata: ["error": "\(error)"])
        }
        // A service that returns ends the application; wait for shutdown instead.
        try? await gracefulShutdown()
    }

    /// The number of documents published, or nil when this Hearth already has content.
    func seedIfNew() async throws -> Int? {
        let rows = try await client.query("SELECT EXISTS (SELECT 1 FROM content_documents) AS any", logger: logger)
        for try await hasDocuments in rows.decode(Bool.self) where hasDocuments { return nil }
        let partitions = (0..<Int32(Topic.content.partitions)).map { KafkaTopicPartition(topic: Topic.content.name, partition: $0) }
        let watermarks = try await admin.watermarks(partitions)
        guard watermarks.values.allSatisfy({ $0.high == 0 }) else { return nil }
        let documents = try ContentLibrary.builtIn()
        let correlationId = "bundled-content-\(UUID().uuidString.lowercased())"
        _ = try await publisher.publish(batch: documents.map { publisher.envelope($0.upsertEvent, correlationId: correlationId) })
        return documents.count
    }
}
