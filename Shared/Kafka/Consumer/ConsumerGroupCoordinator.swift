import CRdKafka
import Logging
import Synchronization

/// Applies group rebalances for a `KafkaConsumer`: asks the application where to start before
/// any message of a new partition is delivered, and keeps messages of revoked partitions from
/// reaching it. Runs on the consumer's poll thread, inside librdkafka's rebalance callback.
final class ConsumerGroupCoordinator: Sendable {
    typealias AssignHandler = @Sendable ([KafkaTopicPartition]) async throws -> [KafkaTopicPartition: Int64]
    typealias RevokeHandler = @Sendable ([KafkaTopicPartition]) async -> Void

    private let logger: Logger
    private let onAssign: AssignHandler
    private let onRevoke: RevokeHandler
    private let buffer: BoundedMessageBuffer
    /// The consumer's stop flag: a handler still running when it is set is abandoned.
    private let stop: StopFlag
    private let state = Mutex(State())

    private struct State {
        var assignment: Set<KafkaTopicPartition> = []
        var generation: UInt64 = 0
        var everAssigned = false
        var failure: (any Error)?
    }

    init(logger: Logger, buffer: BoundedMessageBuffer, stop: StopFlag, onAssign: @escaping AssignHandler, onRevoke: @escaping RevokeHandler) {
        self.logger = logger
        self.buffer = buffer
        self.stop = stop
        self.onAssign = onAssign
        self.onRevoke = onRevoke
    }

    var assignment: Set<KafkaTopicPartition> { state.withLock { $0.assignment } }
    /// Counts assignments; raised before `onAssign` runs, so the handler reads the generation that
    /// every message of the new assignment will carry (messages are stamped on the poll thread,
    /// which also runs the rebalance callback).
    var generation: UInt64 { state.withLock { $0.generation } }
    var everAssigned: Bool { state.withLock { $0.everAssigned } }
    var failure: (any Error)? { state.withLock { $0.failure } }

    func fail(_ error: any Error) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
    }

    func owns(_ partition: KafkaTopicPartition) -> Bool {
        state.withLock { $0.assignment.contains(partition) }
    }

    func rebalance(_ rk: OpaquePointer, _ err: rd_kafka_resp_err_t, _ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?) {
        let partitions = TopicPartitionList.partitions(list)
        let cooperative = rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } == "COOPERATIVE"
        switch err {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            assign(rk, partitions, list, cooperative: cooperative)
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            revoke(rk, partitions, list, cooperative: cooperative)
        default:
            logger.error("rebalance failed", metadata: ["error": "\(KafkaError(err))"])
            dropAll(rk, partitions, cooperative: cooperative, list: list)
        }
    }

    private func assign(
        _ rk: OpaquePointer, _ partitions: [KafkaTopicPartition],
        _ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, cooperative: Bool
    ) {
        if failure != nil {
            // A consumer whose start offsets could not be read must not consume at all.
            dropAll(rk, partitions, cooperative: cooperative, list: list)
            return
        }
        state.withLock { $0.generation += 1 }
        let onAssign = onAssign
        switch BlockingBridge.wait(stop: stop, { try await onAssign(partitions) }) {
        case .success(let offsets):
            if let list, let elems = list.pointee.elems {
                for i in 0..<Int(list.pointee.cnt) {
                    let tp = KafkaTopicPartition(topic: String(cString: elems[i].topic), partition: elems[i].partition)
                    if let offset = offsets[tp] { elems[i].offset = offset }
                }
            }
            let error = cooperative ? rd_kafka_incremental_assign(rk, list).map(KafkaError.init(consuming:))
                : resultError(rd_kafka_assign(rk, list))
            if let error {
                logger.error("assign failed", metadata: ["error": "\(error)"])
                fail(error)
                return
            }
            state.withLock { state in
                if cooperative { state.assignment.formUnion(partitions) } else { state.assignment = Set(partitions) }
                state.everAssigned = true
            }
            logger.info("partitions assigned", metadata: ["partitions": "\(partitions.sorted())"])
        case .failure where stop.isSet:
            // Stopping: the assignment is dropped and the group rebalances it to another member.
            logger.info("assignment abandoned: the consumer is stopping")
            dropAll(rk, partitions, cooperative: cooperative, list: list)
        case .failure(let error):
            logger.error("onAssign failed; the consumer stops", metadata: ["error": "\(error)"])
            fail(error)
            dropAll(rk, partitions, cooperative: cooperative, list: list)
        }
    }

    private func revoke(
        _ rk: OpaquePointer, _ partitions: [KafkaTopicPartition],
        _ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, cooperative: Bool
    ) {
        let revoked = Set(partitions)
        state.withLock { state in
            if cooperative { state.assignment.subtract(revoked) } else { state.assignment = [] }
        }
        buffer.removeAll { revoked.contains($0.topicPartition) }
        let onRevoke = onRevoke
        _ = BlockingBridge.wait(stop: stop) { await onRevoke(partitions) }
        if cooperative {
            if let error = rd_kafka_incremental_unassign(rk, list) { logger.warning("unassign failed", metadata: ["error": "\(KafkaError(consuming: error))"]) }
        } else if let error = resultError(rd_kafka_assign(rk, nil)) {
            logger.warning("unassign failed", metadata: ["error": "\(error)"])
        }
        logger.info("partitions revoked", metadata: ["partitions": "\(partitions.sorted())"])
    }

    private func dropAll(
        _ rk: OpaquePointer, _ partitions: [KafkaTopicPartition], cooperative: Bool,
        list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
    ) {
        state.withLock { $0.assignment = [] }
        buffer.removeAll { _ in true }
        if cooperative {
            if let error = rd_kafka_incremental_unassign(rk, list) { rd_kafka_error_destroy(error) }
        } else {
            _ = rd_kafka_assign(rk, nil)
        }
    }

    private func resultError(_ err: rd_kafka_resp_err_t) -> KafkaError? {
        err == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(err)
    }
}
