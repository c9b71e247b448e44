import ArgumentParser
import Foundation
import HearthEvents
import HearthKafka

struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Every topic with its partitions and offsets, and each projection's committed offsets and lag.")

    @Flag(help: "Print JSON instead of tables.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    struct PartitionState: Encodable {
        let topic: String
        let partition: Int32
        let low: Int64
        let high: Int64
    }

    struct GroupState: Encodable {
        let group: String
        let topic: String
        let partition: Int32
        let committed: Int64?
        let lag: Int64?
    }

    struct Output: Encodable {
        let partitions: [PartitionState]
        let groups: [GroupState]
    }

    func run() async throws {
        let admin = KafkaAdmin(bootstrapServers: connection.kafkaBootstrap, logger: CLILogging.logger())
        let metadata: [KafkaTopicMetadata]
        do {
            metadata = try await admin.topics()
        } catch {
            throw CLIFailure("cannot reach Kafka at \(connection.kafkaBootstrap): \(error)")
        }
        let listed = metadata.filter { !$0.name.hasPrefix("__") }.flatMap { topic in
            topic.partitions.map { KafkaTopicPartition(topic: topic.name, partition: $0) }
        }.sorted()
        let watermarks = try await admin.watermarks(listed)
        let partitions = listed.compactMap { partition in
            watermarks[partition].map { PartitionState(topic: partition.topic, partition: partition.partition, low: $0.low, high: $0.high) }
        }
        // The dev broker cannot list groups, so the projections' groups are taken from the code;
        // against real Kafka any other groups are listed too.
        var groups = Set(ReadModelCatalogue.allProjections.map(\.consumerGroup))
        if let listed = try? await admin.consumerGroups() { groups.formUnion(listed) }
        var groupStates: [GroupState] = []
        for group in groups.sorted() {
            let topics = ReadModelCatalogue.allProjections.first { $0.consumerGroup == group }?.topics.map(\.name)
            let wanted = watermarks.keys.filter { topics?.contains($0.topic) ?? true }.sorted()
            guard !wanted.isEmpty else { continue }
            let committed = (try? await admin.committedOffsets(group: group, partitions: wanted)) ?? [:]
            for partition in wanted {
                let offset = committed[partition].flatMap { $0 >= 0 ? $0 : nil }
                groupStates.append(GroupState(
                    group: group, topic: partition.topic, partition: partition.partition, committed: offset,
                    lag: offset.map { max(0, watermarks[partition]!.high - $0) }))
            }
        }
        if json {
            try JSONOutput.print(Output(partitions: partitions, groups: groupStates))
            return
        }
        print(pad("TOPIC", 28) + pad("PART", 6) + pad("LOW", 12) + "HIGH")
        for state in partitions { print(pad(state.topic, 28) + pad("\(state.partition)", 6) + pad("\(state.low)", 12) + "\(state.high)") }
        print("")
        print(pad("GROUP", 36) + pad("TOPIC", 24) + pad("PART", 6) + pad("COMMITTED", 12) + "LAG")
        for state in groupStates {
            print(pad(state.group, 36) + pad(state.topic, 24) + pad("\(state.partition)", 6)
                + pad(state.committed.map(String.init) ?? "-", 12) + (state.lag.map(String.init) ?? "-"))
        }
    }
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
}
