import CRdKafka

/// A failure reported by librdkafka or by the broker, with the classification callers need to
/// decide between retrying, giving up, and restarting the client.
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// The `rd_kafka_resp_err_t` value: negative codes are local to the client, positive ones
    /// come from the broker.
    public let code: Int32
    public let message: String
    /// Retrying the same operation later may succeed (broker moved, timeout, queue full, ...).
    public let isRetriable: Bool
    /// The client instance can no longer be used (e.g. idempotent producer state lost).
    public let isFatal: Bool

    /// Classifies `code` with the built-in table; `message` defaults to librdkafka's text.
    public init(code: Int32, message: String? = nil) {
        self.code = code
        self.message = message ?? String(cString: rd_kafka_err2str(rd_kafka_resp_err_t(rawValue: code)))
        self.isRetriable = Self.isRetriable(code: code)
        self.isFatal = code == RD_KAFKA_RESP_ERR__FATAL.rawValue
    }

    public init(code: Int32, message: String, isRetriable: Bool, isFatal: Bool) {
        self.code = code
        self.message = message
        self.isRetriable = isRetriable
        self.isFatal = isFatal
    }

    init(_ err: rd_kafka_resp_err_t, message: String? = nil) {
        self.init(code: err.rawValue, message: message)
    }

    /// Takes ownership of `error` (an `rd_kafka_error_t *`) and destroys it. librdkafka's own
    /// flags win where it sets them; the table still applies because 2.0.2 only marks a few
    /// (transactional) errors retriable.
    init(consuming error: OpaquePointer) {
        defer { rd_kafka_error_destroy(error) }
        let code = rd_kafka_error_code(error).rawValue
        self.init(
            code: code,
            message: rd_kafka_error_string(error).map { String(cString: $0) } ?? "",
            isRetriable: rd_kafka_error_is_retriable(error) != 0 || Self.isRetriable(code: code),
            isFatal: rd_kafka_error_is_fatal(error) != 0 || code == RD_KAFKA_RESP_ERR__FATAL.rawValue
        )
    }

    /// The symbolic name librdkafka uses for `code`, e.g. `_TIMED_OUT`.
    public var name: String { String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: code))) }

    public var description: String { "KafkaError(\(name) [\(code)]: \(message))" }

    /// Errors that are expected to go away on their own: connectivity, leadership moves,
    /// coordinator changes, full local queues. Kafka's protocol marks the broker-side ones
    /// retriable; the local ones are librdkafka's transient states.
    public static func isRetriable(code: Int32) -> Bool {
        retriableCodes.contains(code)
    }

    private static let retriableCodes: Set<Int32> = Set([
        RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT,
        RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__RESOLVE, RD_KAFKA_RESP_ERR__WAIT_COORD,
        RD_KAFKA_RESP_ERR__QUEUE_FULL, RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE, RD_KAFKA_RESP_ERR__NODE_UPDATE,
        RD_KAFKA_RESP_ERR__WAIT_CACHE, RD_KAFKA_RESP_ERR__RETRY, RD_KAFKA_RESP_ERR__IN_PROGRESS,
        RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_INVALID_MSG, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
        RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION,
        RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_NOT_COORDINATOR, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
        RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND, RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
        RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS, RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR,
        RD_KAFKA_RESP_ERR_FETCH_SESSION_ID_NOT_FOUND, RD_KAFKA_RESP_ERR_INVALID_FETCH_SESSION_EPOCH,
        RD_KAFKA_RESP_ERR_LISTENER_NOT_FOUND, RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH,
        RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH, RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_PREFERRED_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED,
    ].map(\.rawValue))
}
