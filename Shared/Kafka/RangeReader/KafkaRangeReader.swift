import CRdKafka
import Foundation
import Logging

/// Reads fixed offset ranges without joining a consumer group (`rd_kafka_assign`), for replays
/// and `tail`. Single pass: reading starts with the first iterator, and all iterators share one
/// stream of messages.
///
/// Without `follow`, each range is cut at the partition's high watermark when reading starts,
/// and the sequence ends once every range is read. With `follow`, ranges end only at their upper
/// bound (`Int64.max`: never), and new messages keep arriving.
public final class KafkaRangeReader: AsyncSequence, Sendable {
    public typealias Element = KafkaMessage
    public typealias AsyncIterator = KafkaMessageIterator

    private let bootstrapServers: String
    private let ranges: [KafkaTopicPartition: Range<Int64>]
    private let follow: Bool
    private let logger: Logger
    private let buffer: BoundedMessageBuffer
    private let lifetime: ReaderLifetime
    private let additional: [String: String]

    /// - Parameter additional: raw librdkafka properties applied last, e.g. a small
    ///   `fetch.wait.max.ms` for a follower that must see new messages within milliseconds.
    public init(
        bootstrapServers: String,
        ranges: [KafkaTopicPartition: Range<Int64>],
        follow: Bool = false,
        maxBufferedMessages: Int = 10_000,
        additional: [String: String] = [:],
        logger: Logger
    ) {
        self.bootstrapServers = bootstrapServers
        self.ranges = ranges
        self.follow = follow
        self.logger = logger
        buffer = BoundedMessageBuffer(capacity: maxBufferedMessages)
        lifetime = ReaderLifetime()
        self.additional = additional
    }

    public func makeAsyncIterator() -> KafkaMessageIterator {
        if lifetime.claimStart() { start() }
        return KafkaMessageIterator(buffer: buffer, lifetime: lifetime)
    }

    /// Stops reading; iterators end after what is already buffered.
    public func cancel() {
        lifetime.stop.set()
    }

    private func start() {
        var properties = [
            "bootstrap.servers": bootstrapServers,
            // rd_kafka_consumer_poll needs a group id even though no group is ever joined.
            "group.id": "hearth-range-reader-\(UUID().uuidString)",
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "enable.partition.eof": "true",
            // A lower bound below the log start (deleted data) starts at the log start.
            "auto.offset.reset": "earliest",
        ]
        properties.merge(additional) { _, new in new }
        let configuration = properties
        let buffer = buffer
        let stop = lifetime.stop
        let logger = logger
        let ranges = ranges
        let follow = follow
        DedicatedThread.start(name: "kafka-range-reader") {
            do {
                let conf = try RdKafkaConfig.make(configuration)
                let callbacks = ClientCallbacks(logger: logger).install(on: conf)
                defer { callbacks.release() }
                let handle = RdKafkaHandle(try RdKafkaConfig.newHandle(RD_KAFKA_CONSUMER, conf: conf))
                defer { handle.destroy() }
                let rk = handle.ownerPointer
                _ = rd_kafka_poll_set_consumer(rk)
                let error = Self.read(rk, ranges: ranges, follow: follow, buffer: buffer, stop: stop)
                _ = rd_kafka_assign(rk, nil)
                buffer.finish(error: error)
            } catch {
                buffer.finish(error: error)
            }
        }
    }

    /// Runs on the reader's thread. Returns the error that ended reading early, if any.
    private static func read(
        _ rk: OpaquePointer, ranges: [KafkaTopicPartition: Range<Int64>], follow: Bool,
        buffer: BoundedMessageBuffer, stop: StopFlag
    ) -> KafkaError? {
        var ends: [KafkaTopicPartition: Int64] = [:]
        for (tp, range) in ranges {
            var end = range.upperBound
            if !follow {
                var low: Int64 = -1
                var high: Int64 = -1
                let err = rd_kafka_query_watermark_offsets(rk, tp.topic, tp.partition, &low, &high, 10_000)
                if err != RD_KAFKA_RESP_ERR_NO_ERROR { return KafkaError(err, message: "watermarks of \(tp): \(KafkaError(err).message)") }
                end = Swift.min(end, high)
            }
            if end > range.lowerBound { ends[tp] = end }
        }
        guard !ends.isEmpty else { return nil }

        let starts = Dictionary(uniqueKeysWithValues: ends.keys.map { ($0, ranges[$0]!.lowerBound) })
        let assignment = TopicPartitionList.make(ends.keys, offsets: starts)
        let err = rd_kafka_assign(rk, assignment)
        rd_kafka_topic_partition_list_destroy(assignment)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR { return KafkaError(err) }

        var pending = Set(ends.keys)
        while !pending.isEmpty, !stop.isSet {
            guard let message = rd_kafka_consumer_poll(rk, 100) else { continue }
            defer { rd_kafka_message_destroy(message) }
            let m = message.pointee
            let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
            let tp = KafkaTopicPartition(topic: topic, partition: m.partition)
            if m.err == RD_KAFKA_RESP_ERR__PARTITION_EOF {
                // Covers ends that no delivered message reaches (transaction markers, compaction).
                if let end = ends[tp], m.offset >= end { finish(rk, tp, &pending) }
                continue
            }
            if m.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                let error = KafkaError(m.err, message: rd_kafka_message_errstr(message).map { String(cString: $0) })
                if error.isRetriable { continue }
                return error
            }
            guard let end = ends[tp], pending.contains(tp) else { continue }
            if m.offset < end {
                guard buffer.pushWaiting(KafkaMessage(copying: message), shouldStop: { stop.isSet }) else { return nil }
            }
            if m.offset + 1 >= end { finish(rk, tp, &pending) }
        }
        return nil
    }

    private static func finish(_ rk: OpaquePointer, _ tp: KafkaTopicPartition, _ pending: inout Set<KafkaTopicPartition>) {
        guard pending.remove(tp) != nil else { return }
        let list = TopicPartitionList.make([tp])
        _ = rd_kafka_pause_partitions(rk, list)
        rd_kafka_topic_partition_list_destroy(list)
    }
}
