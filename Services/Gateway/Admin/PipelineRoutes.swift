import Foundation
import HearthEvents
import HearthKafka
import HearthRuntime
import HearthStore
import Hummingbird
import Logging

/// Sends a parked event back to its topic, as `hearthctl dlq redrive` does, and records who did
/// it (`admin.dead_letter_redriven`). The copy keeps the event's key, value and first headers, so
/// every projection of the topic sees it again and the one that parked it retries.
struct DeadLetterRedrive: Sendable {
    let parked: ParkedEvents
    let publisher: EventPublisher

    struct Target: Decodable, Sendable {
        var projection: String
        var topic: String
        var partition: Int32
        var offset: Int64

        func validated() throws -> Target {
            guard (1...200).contains(projection.count) else { throw APIError.invalid("projection", "projection must be a projection's name") }
            guard Topic.named(topic) != nil, !topic.hasSuffix(".dlq") else { throw APIError.invalid("topic", "topic must be an event topic of the catalogue") }
            guard partition >= 0 else { throw APIError.invalid("partition", "partition must be 0 or more") }
            guard offset >= 0 else { throw APIError.invalid("offset", "offset must be 0 or more") }
            return self
        }
    }

    struct Redriven: ResponseEncodable {
        let projection: String
        let topic: String
        let partition: Int32
        let offset: Int64
        let redrivenPartition: Int32
        let redrivenOffset: Int64
        /// The audit event's position.
        let position: String

        enum CodingKeys: String, CodingKey {
            case projection, topic, partition, offset
            case redrivenPartition = "redriven_partition"
            case redrivenOffset = "redriven_offset"
            case position
        }
    }

    /// Claims the parked position for this redrive; false when it was redriven before. A claim
    /// whose copy was never sent (the gateway stopped in between) is taken over after two minutes.
    private func claim(_ target: Target, by admin: UUID, logger: Logger) async throws -> Bool {
        for try await _ in try await parked.client.query(
            """
            INSERT INTO admin_redrives (projection, topic, partition, "offset", admin_id)
            VALUES (\(target.projection), \(target.topic), \(target.partition), \(target.offset), \(admin))
            ON CONFLICT (projection, topic, partition, "offset") DO UPDATE SET admin_id = EXCLUDED.admin_id, claimed_at = now()
                WHERE admin_redrives.sent_at IS NULL AND admin_redrives.claimed_at < now() - interval '2 minutes'
            RETURNING 1
            """, logger: logger
        ).decode(Int32.self) {
            return true
        }
        return false
    }

    private func markSent(_ target: Target, logger: Logger) async throws {
        try await parked.client.query(
            """
            UPDATE admin_redrives SET sent_at = now()
            WHERE projection = \(target.projection) AND topic = \(target.topic) AND partition = \(target.partition) AND "offset" = \(target.offset)
            """, logger: logger)
    }

    private func release(_ target: Target, logger: Logger) async throws {
        try await parked.client.query(
            """
            DELETE FROM admin_redrives
            WHERE projection = \(target.projection) AND topic = \(target.topic) AND partition = \(target.partition) AND "offset" = \(target.offset)
                AND sent_at IS NULL
            """, logger: logger)
    }

    /// Claims the position, sends the copy, then records who did it. Should the audit event fail
    /// after the copy went out, the claim (with the admin) is the record, and the error says so.
    func redrive(_ target: Target, by admin: UUID, correlationId: String, logger: Logger) async throws -> Redriven {
        guard let (entry, message) = try await parked.redriveMessage(
            projection: target.projection, topic: target.topic, partition: target.partition, offset: target.offset)
        else { throw APIError.notFound("dead letter") }
        guard try await claim(target, by: admin, logger: logger) else {
            throw APIError(.conflict, code: "already_redriven", message: "this parked event was already redriven; if it failed again it is parked at its new position")
        }
        let report: KafkaDeliveryReport
        do {
            report = try await publisher.producer.send(message)
        } catch {
            // Not sent (as far as Kafka told): the claim goes, so the redrive can be tried again.
            // Should the copy have gone out after all, projections apply it like any redelivery.
            try? await release(target, logger: logger)
            throw error
        }
        try await markSent(target, logger: logger)
        let audit = AdminDeadLetterRedriven(
            adminId: admin, projection: entry.projection, topic: entry.topic, partition: entry.partition, offset: entry.offset,
            eventId: entry.eventId, eventType: entry.eventType, redrivenPartition: Int32(report.partition), redrivenOffset: report.offset)
        let position: EventPosition
        do {
            position = try await publisher.publish(audit, correlationId: correlationId)
        } catch {
            logger.error("parked event redriven, but its audit event was not published (admin_redrives holds the admin)", metadata: [
                "admin_id": "\(admin)", "from": "\(entry.topic)/\(entry.partition)@\(entry.offset)", "error": "\(error)",
            ])
            throw error
        }
        logger.notice("parked event redriven by an admin", metadata: [
            "admin_id": "\(admin)", "projection": "\(entry.projection)", "from": "\(entry.topic)/\(entry.partition)@\(entry.offset)",
            "to": "\(report.topic)/\(report.partition)@\(report.offset)",
        ])
        return Redriven(
            projection: entry.projection, topic: entry.topic, partition: entry.partition, offset: entry.offset,
            redrivenPartition: Int32(report.partition), redrivenOffset: report.offset, position: position.description)
    }
}

/// `GET /v1/admin/pipeline` and `POST /v1/admin/pipeline/redrive`: the *Pipeline* page's twins.
struct PipelineRoutes: Sendable {
    let health: PipelineHealth
    let redrive: DeadLetterRedrive

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("pipeline") { _, _ in try await health.report() }
        routes.post("pipeline/redrive") { request, context in
            let target = try await JSONRequestBody.decode(DeadLetterRedrive.Target.self, from: request, context: context).validated()
            return try await redrive.redrive(target, by: try context.authenticatedUser(), correlationId: context.correlationId, logger: context.logger)
        }
    }
}
