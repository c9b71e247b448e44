import CRdKafka
import Foundation

extension KafkaMessage {
    /// Copies everything out of `message`, which librdkafka frees after the poll returns.
    init(copying message: UnsafePointer<rd_kafka_message_t>) {
        let m = message.pointee
        let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        let key: [UInt8]? = m.key.map { Array(UnsafeRawBufferPointer(start: $0, count: m.key_len)) }
        let value: [UInt8] = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: m.len)) } ?? []

        var headers: [KafkaHeader] = []
        var hdrs: OpaquePointer?
        if rd_kafka_message_headers(message, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR, let hdrs {
            var index = 0
            var name: UnsafePointer<CChar>?
            var val: UnsafeRawPointer?
            var size = 0
            while rd_kafka_header_get_all(hdrs, index, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
                let bytes = val.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
                headers.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
                index += 1
            }
        }

        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let millis = rd_kafka_message_timestamp(message, &timestampType)
        let timestamp = timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE || millis < 0
            ? nil : Date(timeIntervalSince1970: Double(millis) / 1000)

        self.init(
            topic: topic, partition: m.partition, offset: m.offset, key: key, value: value,
            headers: headers, timestamp: timestamp
        )
    }
}
