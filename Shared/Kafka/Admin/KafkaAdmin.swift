import CRdKafka
import Foundation
import Logging

/// Cluster inspection and topic creation. Each call uses a short-lived client on a dedicated
/// thread: these are rare operations (CLI, startup, tests), and nothing lingers between them.
public struct KafkaAdmin: Sendable {
    public let bootstrapServers: String
    private let logger: Logger
    private let timeoutMs: Int32 = 10_000

    public init(bootstrapServers: String, logger: Logger) {
        self.bootstrapServers = bootstrapServers
        self.logger = logger
    }

    /// Every non-internal topic, sorted by name.
    public func topics() async throws -> [KafkaTopicMetadata] {
        let timeoutMs = timeoutMs
        return try await withClient(name: "kafka-admin-topics") { rk throws(KafkaError) in
            try Self.allTopics(rk, timeoutMs: timeoutMs).filter { !$0.name.hasPrefix("__") }
        }
    }

    public func watermarks(_ tp: KafkaTopicPartition) async throws -> KafkaWatermarks {
        try await watermarks([tp])[tp]!
    }

    /// The watermarks of many partitions through one client: asking with a client per partition
    /// pays a connection and a metadata round trip for each, and a topic has several.
    public func watermarks(_ partitions: [KafkaTopicPartition]) async throws -> [KafkaTopicPartition: KafkaWatermarks] {
        guard !partitions.isEmpty else { return [:] }
        let timeoutMs = timeoutMs
        return try await withClient(name: "kafka-admin-watermarks") { rk throws(KafkaError) in
            var result: [KafkaTopicPartition: KafkaWatermarks] = [:]
            for tp in partitions where result[tp] == nil {
                var low: Int64 = -1
                var high: Int64 = -1
                let err = rd_kafka_query_watermark_offsets(rk, tp.topic, tp.partition, &low, &high, timeoutMs)
                guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err, message: "\(tp): \(KafkaError(err).message)") }
                result[tp] = KafkaWatermarks(low: low, high: high)
            }
            return result
        }
    }

    /// The group's committed next offsets; partitions without a commit are absent.
    public func committedOffsets(group: String, partitions: [KafkaTopicPartition]) async throws -> [KafkaTopicPartition: Int64] {
        guard !partitions.isEmpty else { return [:] }
        let timeoutMs = timeoutMs
        // Reading a group's offsets needs a consumer handle with that group id; it never joins.
        return try await withClient(
            name: "kafka-admin-committed", type: RD_KAFKA_CONSUMER,
            extra: ["group.id": group, "enable.auto.commit": "false"]
        ) { rk throws(KafkaError) in
            let list = TopicPartitionList.make(partitions)
            defer { rd_kafka_topic_partition_list_destroy(list) }
            let err = rd_kafka_committed(rk, list, timeoutMs)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err) }
            var result: [KafkaTopicPartition: Int64] = [:]
            for (tp, offset, partitionErr) in TopicPartitionList.elements(list) where partitionErr == RD_KAFKA_RESP_ERR_NO_ERROR && offset >= 0 {
                result[tp] = offset
            }
            return result
        }
    }

    /// Creates the topic unless it exists (an existing topic is success, whatever its partition
    /// count: Kafka cannot shrink one), and returns once every partition has a leader. Against
    /// the devbroker (librdkafka's mock, which lacks CreateTopics) it goes through
    /// `DevBrokerControl` on the bootstrap port; `config` is then ignored.
    public func createTopic(name: String, partitions: Int, config: [String: String] = [:]) async throws {
        let timeoutMs = timeoutMs
        let bootstrap = bootstrapServers
        let logger = logger
        try await withClient(name: "kafka-admin-create-topic") { rk throws(KafkaError) in
            if let existing = try Self.allTopics(rk, timeoutMs: timeoutMs).first(where: { $0.name == name }) {
                if existing.partitions.count != partitions {
                    logger.warning("topic exists with another partition count", metadata: [
                        "topic": "\(name)", "partitions": "\(existing.partitions.count)", "requested": "\(partitions)",
                    ])
                }
                return
            }
            if Self.isDevBroker(rk, timeoutMs: timeoutMs) {
                let address = bootstrap.split(separator: ",").first.map(String.init) ?? bootstrap
                switch try DevBrokerControl.send(.createTopic(name: name, partitions: partitions), to: address) {
                case .ok, .exists: break
                case .error(let text): throw KafkaError(code: KafkaErrorCode.invalidArgument, message: "devbroker: \(text)")
                }
            } else {
                try Self.createWithAdminAPI(rk, name: name, partitions: partitions, config: config, timeoutMs: timeoutMs)
            }
            try Self.waitForLeaders(rk, topic: name, partitions: partitions, timeoutMs: timeoutMs)
        }
    }

    /// Group ids known to the cluster. The devbroker (mock cluster) does not implement
    /// ListGroups and answers with an unsupported-feature error.
    public func consumerGroups() async throws -> [String] {
        let timeoutMs = timeoutMs
        return try await withClient(name: "kafka-admin-groups") { rk throws(KafkaError) in
            let queue = rd_kafka_queue_new(rk)
            defer { rd_kafka_queue_destroy(queue) }
            let options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS)
            defer { rd_kafka_AdminOptions_destroy(options) }
            var errstr = [CChar](repeating: 0, count: 512)
            _ = rd_kafka_AdminOptions_set_request_timeout(options, timeoutMs, &errstr, errstr.count)
            rd_kafka_ListConsumerGroups(rk, options, queue)
            guard let event = rd_kafka_queue_poll(queue, timeoutMs + 1_000) else {
                throw KafkaError(code: KafkaErrorCode.timedOut, message: "ListConsumerGroups")
            }
            defer { rd_kafka_event_destroy(event) }
            let err = rd_kafka_event_error(event)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError(err, message: rd_kafka_event_error_string(event).map { String(cString: $0) })
            }
            let result = rd_kafka_event_ListConsumerGroups_result(event)
            var count = 0
            var groups: [String] = []
            if let valid = rd_kafka_ListConsumerGroups_result_valid(result, &count) {
                for i in 0..<count {
                    if let listing = valid[i], let id = rd_kafka_ConsumerGroupListing_group_id(listing) { groups.append(String(cString: id)) }
                }
            }
            var errorCount = 0
            if groups.isEmpty, let errors = rd_kafka_ListConsumerGroups_result_errors(result, &errorCount), errorCount > 0, let first = errors[0] {
                throw KafkaError(rd_kafka_error_code(first), message: rd_kafka_error_string(first).map { String(cString: $0) })
            }
            return groups.sorted()
        }
    }

    // MARK: - Blocking helpers, called on the client's dedicated thread

    private func withClient<T: Sendable>(
        name: String, type: rd_kafka_type_t = RD_KAFKA_PRODUCER, extra: [String: String] = [:],
        _ body: @escaping @Sendable (OpaquePointer) throws(KafkaError) -> T
    ) async throws -> T {
        let properties = ["bootstrap.servers": bootstrapServers, "client.id": "hearth-admin"].merging(extra) { _, new in new }
        let logger = logger
        return try await DedicatedThread.run(name: name) { () throws -> T in
            let conf = try RdKafkaConfig.make(properties)
            let callbacks = ClientCallbacks(logger: logger).install(on: conf)
            defer { callbacks.release() }
            let handle = RdKafkaHandle(try RdKafkaConfig.newHandle(type, conf: conf))
            defer { handle.destroy() }
            return try body(handle.ownerPointer)
        }
    }

    private static func allTopics(_ rk: OpaquePointer, timeoutMs: Int32) throws(KafkaError) -> [KafkaTopicMetadata] {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        // all_topics=1 lists without asking the broker to auto-create anything.
        let err = rd_kafka_metadata(rk, 1, nil, &metadata, timeoutMs)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else { throw KafkaError(err) }
        defer { rd_kafka_metadata_destroy(metadata) }
        let md = metadata.pointee
        return (0..<Int(md.topic_cnt)).compactMap { i -> KafkaTopicMetadata? in
            let topic = md.topics[i]
            guard topic.err == RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
            let ids = (0..<Int(topic.partition_cnt)).map { topic.partitions[$0].id }.sorted()
            return KafkaTopicMetadata(name: String(cString: topic.topic), partitions: ids)
        }.sorted { $0.name < $1.name }
    }

    /// The mock cluster names itself "mockCluster<hex>" in metadata responses.
    private static func isDevBroker(_ rk: OpaquePointer, timeoutMs: Int32) -> Bool {
        guard let id = rd_kafka_clusterid(rk, timeoutMs) else { return false }
        defer { rd_kafka_mem_free(rk, id) }
        return String(cString: id).hasPrefix("mockCluster")
    }

    private static func createWithAdminAPI(
        _ rk: OpaquePointer, name: String, partitions: Int, config: [String: String], timeoutMs: Int32
    ) throws(KafkaError) {
        var errstr = [CChar](repeating: 0, count: 512)
        // Replication factor -1: the broker's default.
        guard let newTopic = rd_kafka_NewTopic_new(name, Int32(partitions), -1, &errstr, errstr.count) else {
            throw KafkaError(code: KafkaErrorCode.invalidArgument, message: RdKafkaConfig.cString(errstr))
        }
        defer { rd_kafka_NewTopic_destroy(newTopic) }
        for (key, value) in config.sorted(by: { $0.key < $1.key }) {
            let err = rd_kafka_NewTopic_set_config(newTopic, key, value)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err, message: "\(key)=\(value)") }
        }
        let queue = rd_kafka_queue_new(rk)
        defer { rd_kafka_queue_destroy(queue) }
        let options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        _ = rd_kafka_AdminOptions_set_operation_timeout(options, timeoutMs, &errstr, errstr.count)
        _ = rd_kafka_AdminOptions_set_request_timeout(options, timeoutMs, &errstr, errstr.count)
        var topics: [OpaquePointer?] = [newTopic]
        rd_kafka_CreateTopics(rk, &topics, 1, options, queue)
        guard let event = rd_kafka_queue_poll(queue, timeoutMs + 1_000) else {
            throw KafkaError(code: KafkaErrorCode.timedOut, message: "CreateTopics \(name)")
        }
        defer { rd_kafka_event_destroy(event) }
        let err = rd_kafka_event_error(event)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(err, message: rd_kafka_event_error_string(event).map { String(cString: $0) })
        }
        var count = 0
        guard let results = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count) else { return }
        for i in 0..<count {
            guard let result = results[i] else { continue }
            let topicErr = rd_kafka_topic_result_error(result)
            if topicErr != RD_KAFKA_RESP_ERR_NO_ERROR, topicErr != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS {
                throw KafkaError(topicErr, message: rd_kafka_topic_result_error_string(result).map { String(cString: $0) })
            }
        }
    }

    /// Creation is asynchronous on real clusters; producing right away would fail or, worse,
    /// auto-create with the wrong partition count.
    private static func waitForLeaders(_ rk: OpaquePointer, topic: String, partitions: Int, timeoutMs: Int32) throws(KafkaError) {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMs))
        while ContinuousClock.now < deadline {
            var metadata: UnsafePointer<rd_kafka_metadata>?
            if rd_kafka_metadata(rk, 1, nil, &metadata, timeoutMs) == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata {
                let md = metadata.pointee
                let ready = (0..<Int(md.topic_cnt)).contains { i in
                    let t = md.topics[i]
                    return String(cString: t.topic) == topic && t.err == RD_KAFKA_RESP_ERR_NO_ERROR
                        && Int(t.partition_cnt) >= partitions
                        && (0..<Int(t.partition_cnt)).allSatisfy { t.partitions[$0].leader >= 0 }
                }
                rd_kafka_metadata_destroy(metadata)
                if ready { return }
            }
            usleep(100_000)
        }
        throw KafkaError(code: KafkaErrorCode.timedOut, message: "topic \(topic) has no leaders after \(timeoutMs) ms")
    }
}
