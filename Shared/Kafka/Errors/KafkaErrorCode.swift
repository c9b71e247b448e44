import CRdKafka

/// The `KafkaError.code` values Hearth code branches on, so callers need not import the C module.
public enum KafkaErrorCode {
    public static let timedOut: Int32 = RD_KAFKA_RESP_ERR__TIMED_OUT.rawValue
    public static let requestTimedOut: Int32 = RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT.rawValue
    public static let messageTimedOut: Int32 = RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue
    public static let transport: Int32 = RD_KAFKA_RESP_ERR__TRANSPORT.rawValue
    public static let queueFull: Int32 = RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue
    public static let messageSizeTooLarge: Int32 = RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE.rawValue
    public static let destroyed: Int32 = RD_KAFKA_RESP_ERR__DESTROY.rawValue
    public static let invalidArgument: Int32 = RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue
    public static let unknownTopicOrPartition: Int32 = RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue
    public static let topicAlreadyExists: Int32 = RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS.rawValue
    public static let unsupportedFeature: Int32 = RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE.rawValue
    public static let fatal: Int32 = RD_KAFKA_RESP_ERR__FATAL.rawValue
    public static let state: Int32 = RD_KAFKA_RESP_ERR__STATE.rawValue
}
