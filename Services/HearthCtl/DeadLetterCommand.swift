import ArgumentParser
import Foundation
import HearthEvents
import HearthKafka
import HearthStore

struct DeadLetterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dlq",
        abstract: "Events parked in a topic's dead-letter topic: list them, or send them back after a fix.",
        subcommands: [List.self, Redrive.self])

    /// One parked message, as the projection runner left it. `--json` prints the dead-letter
    /// headers under their own names; "?" stands for a message the relay did not write.
    struct Parked: Encodable {
        let dlqOffset: Int64
        let failedProjection: String
        let originalTopic: String
        let originalPartition: String
        let originalOffset: String
        let error: String
        let eventId: String?
        let type: String?

        init(_ message: KafkaMessage) {
            func header(_ key: String) -> String? { message.header(key).map { String(decoding: $0, as: UTF8.self) } }
            let parked = DeadLetterHeaders(headers: message.headers)
            dlqOffset = message.offset
            failedProjection = parked?.projection ?? "?"
            originalTopic = parked?.topic ?? "?"
            originalPartition = parked.map { String($0.partition) } ?? "?"
            originalOffset = parked.map { String($0.offset) } ?? "?"
            error = parked?.error ?? ""
            eventId = header(EventHeaders.id)
            type = header(EventHeaders.type)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            try container.encode(dlqOffset, forKey: AnyCodingKey("dlq_offset"))
            try container.encode(failedProjection, forKey: AnyCodingKey(DeadLetterHeaders.Name.projection))
            try container.encode(originalTopic, forKey: AnyCodingKey(DeadLetterHeaders.Name.topic))
            try container.encode(originalPartition, forKey: AnyCodingKey(DeadLetterHeaders.Name.partition))
            try container.encode(originalOffset, forKey: AnyCodingKey(DeadLetterHeaders.Name.offset))
            try container.encode(error, forKey: AnyCodingKey(DeadLetterHeaders.Name.error))
            try container.encodeIfPresent(eventId, forKey: AnyCodingKey("event_id"))
            try container.encodeIfPresent(type, forKey: AnyCodingKey("type"))
        }
    }

    /// Every message of `<topic>.dlq`, oldest first.
    static func parked(topic: String, bootstrap: String) async throws -> [KafkaMessage] {
        guard let base = Topic.named(topic), !topic.hasSuffix(".dlq") else {
            throw CLIFailure("unknown topic \(topic); name the event topic (e.g. households), not its .dlq")
        }
        let logger = CLILogging.logger()
        let dlq = KafkaTopicPartition(topic: base.deadLetter.name, partition: 0)
        let admin = KafkaAdmin(bootstrapServers: bootstrap, logger: logger)
        let held: KafkaWatermarks
        do {
            held = try await admin.watermarks(dlq)
        } catch {
            throw CLIFailure("cannot read \(dlq.topic) from Kafka at \(bootstrap): \(error)")
        }
        guard held.high > held.low else { return [] }
        var messages: [KafkaMessage] = []
        for try await message in KafkaRangeReader(bootstrapServers: bootstrap, ranges: [dlq: held.low..<held.high], logger: logger) {
            messages.append(message)
        }
        return messages
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the parked events of a topic with their errors.")

        @Argument(help: "The event topic, e.g. households.") var topic: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let parked = try await DeadLetterCommand.parked(topic: topic, bootstrap: connection.kafkaBootstrap).map(Parked.init)
            if json {
                try JSONOutput.print(parked)
                return
            }
            if parked.isEmpty { print("\(topic).dlq is empty") }
            for entry in parked {
                print("#\(entry.dlqOffset)  \(entry.type ?? "?")  id=\(entry.eventId ?? "?")  from \(entry.originalTopic)/\(entry.originalPartition)@\(entry.originalOffset)  projection=\(entry.failedProjection)")
                print("    \(entry.error)")
            }
        }
    }

    struct Redrive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish parked events again to their original topic, so the projections retry them.",
            discussion: """
                Each event keeps its key, value and original headers, so it lands on the same partition \
                and every projection of the topic sees it again; projections that had applied it treat \
                it like any other upsert of the same state.
                """)

        @Argument(help: "The event topic, e.g. households.") var topic: String
        @Option(name: .customLong("id"), help: "Only these event ids or DLQ offsets (repeatable).") var ids: [String] = []
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let wanted = Set(ids.map { $0.lowercased() })
            var seen = Set<String>()
            let selected = try await DeadLetterCommand.parked(topic: topic, bootstrap: connection.kafkaBootstrap).filter { message in
                let eventId = message.header(EventHeaders.id).map { String(decoding: $0, as: UTF8.self).lowercased() }
                guard wanted.isEmpty || wanted.contains(String(message.offset)) || eventId.map(wanted.contains) == true else { return false }
                // One event parked by several projections is sent back once.
                return seen.insert(eventId ?? "offset-\(message.offset)").inserted
            }
            guard !selected.isEmpty else {
                print("nothing to redrive")
                return
            }
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(bootstrapServers: connection.kafkaBootstrap, clientId: "hearthctl-redrive"),
                logger: CLILogging.logger())
            let outgoing = selected.map { message in
                KafkaOutgoingMessage(topic: topic, key: message.key, value: message.value, headers: DeadLetterHeaders.redriveHeaders(of: message))
            }
            do {
                let reports = try await producer.send(outgoing)
                await producer.close()
                for (message, report) in zip(selected, reports) {
                    print("redriven \(topic).dlq@\(message.offset) -> \(report.topic)/\(report.partition)@\(report.offset)")
                }
            } catch {
                await producer.close()
                throw CLIFailure("redrive failed: \(error)")
            }
        }
    }
}
