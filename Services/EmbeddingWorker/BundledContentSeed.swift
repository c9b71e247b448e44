import Foundation
import HearthDomain
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
/// already has. The activity feed's library is seeded alike (`seedActivities`).
/// `HEARTH_SEED_CONTENT=false` turns both off.
struct BundledContentSeed: Service {
    let client: PostgresClient
    let admin: KafkaAdmin
    let publisher: EventPublisher
    let logger: Logger

    func run() async throws {
        // Decided once, then published until Kafka took every document: a failure part way
        // (the broker away, the topic not there yet) is retried whole, which is harmless (the
        // projection skips what it has), instead of leaving a partial library that every later
        // start would take for managed content.
        guard let isNew = await retrying("decide whether the content library is new", { try await isNewInstall() }) else { return }
        if isNew {
            let documents: [SourceDocument]
            do {
                documents = try ContentLibrary.builtIn()
            } catch {
                logger.error("the bundled content library cannot be read", metadata: ["error": "\(error)"])
                try? await gracefulShutdown()
                return
            }
            let correlationId = "bundled-content-\(UUID().uuidString.lowercased())"
            let published: Void? = await retrying("publish the bundled content library") {
                _ = try await publisher.publish(batch: documents.map { publisher.envelope($0.upsertEvent, correlationId: correlationId) })
            }
            if published != nil {
                logger.info("content library was empty: published the bundled documents", metadata: ["documents": "\(documents.count)", "topic": "\(Topic.content.name)"])
            }
        } else {
            logger.info("content library already managed: nothing to publish")
        }
        await seedActivities()
        // A service that returns ends the application; wait for shutdown instead.
        try? await gracefulShutdown()
    }

    /// The activity feed's library, the same way: published when nothing was ever published to
    /// `activities` (a submission, a withdrawal or an earlier library means the feed is managed).
    /// Two workers starting at once may both publish; the projections keep one row per activity
    /// and skip an unchanged republication.
    func seedActivities() async {
        guard let isNew = await retrying("decide whether the activity feed is new", { try await Self.isEmpty(.activities, admin: admin) }) else { return }
        guard isNew else {
            logger.info("activity feed already managed: nothing to publish")
            return
        }
        let publications: [ActivityPublished]
        do {
            publications = try ActivityLibrary.bundled().publications
        } catch {
            logger.error("the bundled activity library cannot be read", metadata: ["error": "\(error)"])
            try? await gracefulShutdown()
            return
        }
        let correlationId = "bundled-activities-\(UUID().uuidString.lowercased())"
        let published: Void? = await retrying("publish the bundled activity library") {
            _ = try await publisher.publish(batch: publications.map { publisher.envelope($0, correlationId: correlationId) })
        }
        if published != nil {
            logger.info("activity feed was empty: published the bundled library", metadata: ["activities": "\(publications.count)", "topic": "\(Topic.activities.name)"])
        }
    }

    /// True when nothing was ever published to `topic`.
    static func isEmpty(_ topic: Topic, admin: KafkaAdmin) async throws -> Bool {
        let partitions = (0..<Int32(topic.partitions)).map { KafkaTopicPartition(topic: topic.name, partition: $0) }
        return try await admin.watermarks(partitions).values.allSatisfy { $0.high == 0 }
    }

    /// True when this Hearth has no document and nothing was ever published to `content`.
    func isNewInstall() async throws -> Bool {
        let rows = try await client.query("SELECT EXISTS (SELECT 1 FROM content_documents) AS any", logger: logger)
        for try await hasDocuments in rows.decode(Bool.self) where hasDocuments { return false }
        return try await Self.isEmpty(.content, admin: admin)
    }

    /// `step`, again after a growing pause (1 s to 30 s) while it fails; nil once the service is
    /// stopping. Not a reason to stop embedding: the operator can still run `hearthctl ingest`.
    private func retrying<T>(_ what: String, _ step: () async throws -> T) async -> T? {
        var pause = Duration.seconds(1)
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                return try await step()
            } catch {
                logger.warning("could not \(what) yet; retrying", metadata: ["error": "\(error)", "retry_in": "\(pause)"])
                let until = ContinuousClock.now + pause
                while ContinuousClock.now < until, !Task.isCancelled, !Task.isShuttingDownGracefully {
                    try? await Task.sleep(for: .milliseconds(200))
                }
                pause = min(pause * 2, .seconds(30))
            }
        }
        return nil
    }
}
