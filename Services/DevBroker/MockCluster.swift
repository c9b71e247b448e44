import CRdKafka
import Foundation
import HearthEvents
import Synchronization

/// librdkafka's in-process mock cluster, hosted by a client handle of its own.
///
/// `@unchecked Sendable`: the `rd_kafka_mock_*` calls post a request to the mock cluster's own
/// thread and wait for its answer, so they are safe from any thread; the pointers never change
/// until `destroy`, which runs once, after the forwarder that uses them has stopped.
final class MockCluster: @unchecked Sendable {
    private let host: OpaquePointer
    private let cluster: OpaquePointer
    let brokers: Int
    /// The brokers' real (ephemeral) addresses, as advertised in metadata.
    let bootstrapServers: String

    init(brokers: Int) throws {
        let conf = rd_kafka_conf_new()!
        var errstr = [CChar](repeating: 0, count: 512)
        // The host handle needs no bootstrap servers; hide the notice complaining about that.
        _ = rd_kafka_conf_set(conf, "log_level", "4", &errstr, errstr.count)
        guard let host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            throw DevBrokerFailure("rd_kafka_new: \(errstr.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        guard let cluster = rd_kafka_mock_cluster_new(host, Int32(brokers)) else {
            rd_kafka_destroy(host)
            throw DevBrokerFailure("rd_kafka_mock_cluster_new failed (see librdkafka log above)")
        }
        self.host = host
        self.cluster = cluster
        self.brokers = brokers
        bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
    }

    /// Partitions of each topic are replicated like Kafka would with this many brokers; the
    /// mock ignores replication for durability, but spreads leaders.
    func createTopic(name: String, partitions: Int) -> rd_kafka_resp_err_t {
        rd_kafka_mock_topic_create(cluster, name, Int32(partitions), Int32(min(3, brokers)))
    }

    /// Every broker down (its listener closes connections) or up again; the first error, if any.
    func setBrokers(up: Bool) -> rd_kafka_resp_err_t {
        for id in 1...Int32(brokers) {
            let err = up ? rd_kafka_mock_broker_set_up(cluster, id) : rd_kafka_mock_broker_set_down(cluster, id)
            if err != RD_KAFKA_RESP_ERR_NO_ERROR { return err }
        }
        return RD_KAFKA_RESP_ERR_NO_ERROR
    }

    /// Every catalogue topic and its dead-letter topic, so that services never depend on
    /// auto-creation (which would give 4 partitions and break the key → partition contract).
    func createCatalogue() throws -> [Topic] {
        let topics = Topic.all.flatMap { [$0, $0.deadLetter] }
        // One thread per topic: the 2.0.2 mock thread sometimes misses the wake-up for a
        // request and only serves it at its next 1 s poll timeout. Sequential creation measured
        // up to 7 s for these 26 topics; concurrent requests share one such wait.
        let results = Mutex([String: rd_kafka_resp_err_t]())
        let done = DispatchGroup()
        for topic in topics {
            done.enter()
            let thread = Thread { [self] in
                let err = createTopic(name: topic.name, partitions: topic.partitions)
                results.withLock { $0[topic.name] = err }
                done.leave()
            }
            thread.start()
        }
        done.wait()
        for topic in topics {
            let err = results.withLock { $0[topic.name] } ?? RD_KAFKA_RESP_ERR__FAIL
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR || err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS else {
                throw DevBrokerFailure("creating \(topic.name): \(String(cString: rd_kafka_err2str(err)))")
            }
        }
        return topics
    }

    /// The mock must go before its host handle (librdkafka asserts on the reverse order).
    func destroy() {
        rd_kafka_mock_cluster_destroy(cluster)
        rd_kafka_destroy(host)
    }
}
