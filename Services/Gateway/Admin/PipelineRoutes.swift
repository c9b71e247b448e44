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

    func redrive(_ target: Target, by admin: UUID, correlationId: String, logger: Logger) async throws -> Redriven {
        guard let (entry, message) = try await parked.redriveMessage(
            projection: target.projection, topic: target.topic, partition: target.partition, offset: target.offset)
        else { throw APIError.notFound("dead letter") }
        let report = try await publisher.producer.send(message)
        let audit = AdminDeadLetterRedriven(
            adminId: admin, projection: entry.projection, topic: entry.topic, partition: entry.partition, offset: entry.offset,
            eventId: entry.eventId, eventType: entry.eventType, redrivenPartition: Int32(report.partition), redrivenOffset: report.offset)
        let position = try await publisher.publish(audit, correlationId: correlationId)
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
