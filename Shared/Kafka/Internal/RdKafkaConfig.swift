import CRdKafka

/// Builds an `rd_kafka_conf_t` from string properties so every client reports a bad property
/// the same way: as a `KafkaError` naming the key, before any handle exists.
enum RdKafkaConfig {
    static func make(_ properties: [String: String]) throws(KafkaError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        // Sorted so that a failure report is deterministic.
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            var errstr = [CChar](repeating: 0, count: 512)
            let result = rd_kafka_conf_set(conf, key, value, &errstr, errstr.count)
            if result != RD_KAFKA_CONF_OK {
                rd_kafka_conf_destroy(conf)
                throw KafkaError(code: KafkaErrorCode.invalidArgument, message: "\(key)=\(value): \(cString(errstr))")
            }
        }
        return conf
    }

    /// Creates the handle; on failure librdkafka leaves `conf` to us, on success it owns it.
    static func newHandle(_ type: rd_kafka_type_t, conf: OpaquePointer) throws(KafkaError) -> OpaquePointer {
        var errstr = [CChar](repeating: 0, count: 512)
        guard let rk = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            throw KafkaError(code: KafkaErrorCode.invalidArgument, message: cString(errstr))
        }
        return rk
    }

    static func cString(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
