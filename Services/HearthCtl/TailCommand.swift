import ArgumentParser
import Foundation
import HearthEvents
import HearthPrivacy
import HearthKafka

struct TailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Print the events of a topic: time, type, key, correlation and a one-line summary.")

    @Argument(help: "The topic, e.g. households or households.dlq.")
    var topic: String

    @Option(help: "Where to start: beginning, end, or an RFC 3339 time (events at or after it).")
    var from: String = "beginning"

    @Flag(help: "Keep waiting for new events (Ctrl-C stops).")
    var follow = false

    @Option(help: "Only events of this type.") var type: String?
    @Option(help: "Only events with this key.") var key: String?
    @Option(help: "Only events with this correlation id.") var correlation: String?
    @Flag(help: "Print each event's exact JSON.") var raw = false
    @Flag(help: "Print one JSON summary per line.") var json = false
    @Flag(help: "Leave personal fields sealed, as Kafka holds them (by default they are opened with the data keys).") var sealed = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        guard let topicInfo = Topic.named(topic) else {
            throw CLIFailure("unknown topic \(topic); `hearthctl catalogue` lists them")
        }
        var since: Date?
        let startAtEnd: Bool
        switch from {
        case "beginning": startAtEnd = false
        case "end": startAtEnd = true
        default:
            guard let time = Timestamp.parse(from) else { throw CLIFailure("--from must be beginning, end or an RFC 3339 time, not \(from)") }
            since = time
            startAtEnd = false
        }
        let logger = CLILogging.logger()
        let admin = KafkaAdmin(bootstrapServers: connection.kafkaBootstrap, logger: logger)
        var ranges: [KafkaTopicPartition: Range<Int64>] = [:]
        do {
            let partitions = (0..<topicInfo.partitions).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) }
            for (partition, held) in try await admin.watermarks(partitions) {
                let start = startAtEnd ? held.high : held.low
                ranges[partition] = start..<(follow ? Int64.max : max(start, held.high))
            }
        } catch {
            throw CLIFailure("cannot read \(topic) from Kafka at \(connection.kafkaBootstrap): \(error)")
        }
        let reader = KafkaRangeReader(bootstrapServers: connection.kafkaBootstrap, ranges: ranges, follow: follow, logger: logger)
        let start = since
        if sealed {
            try await show(reader, since: start) { $0 }
        } else {
            let connection = connection
            try await connection.withPostgres(logger: logger) { client in
                let keys = try connection.keys(client: client, logger: logger)
                try await show(reader, since: start) { try await keys.open($0) }
            }
        }
    }

    private func show(_ reader: KafkaRangeReader, since: Date?, open: ([UInt8]) async throws -> [UInt8]) async throws {
        for try await message in reader {
            let value = try await open(message.value)
            guard let event = EventSummary(topic: message.topic, partition: message.partition, offset: message.offset, value: value) else {
                if type == nil && key == nil && correlation == nil && since == nil {
                    emitLine("\(message.topic)/\(message.partition)@\(message.offset)  (not a Hearth envelope: \(message.value.count) bytes)")
                }
                continue
            }
            if let type, event.type != type { continue }
            if let key, event.key != key { continue }
            if let correlation, event.correlationId != correlation { continue }
            if let since, let time = event.occurredDate, time < since { continue }
            if raw {
                emitLine(String(decoding: value, as: UTF8.self))
            } else if json {
                emitLine(try JSONOutput.encode(event))
            } else {
                emitLine(event.line)
            }
        }
    }
}

/// Unbuffered, so `tail --follow | grep` shows each event as it arrives.
func emitLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
