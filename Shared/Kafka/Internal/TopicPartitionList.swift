import CRdKafka

/// Conversions between Swift collections and `rd_kafka_topic_partition_list_t`; the caller
/// owns (and must destroy) every list these functions create.
enum TopicPartitionList {
    static func make(_ partitions: some Collection<KafkaTopicPartition>, offsets: [KafkaTopicPartition: Int64] = [:])
        -> UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    {
        let list = rd_kafka_topic_partition_list_new(Int32(partitions.count))!
        for tp in partitions {
            let element = rd_kafka_topic_partition_list_add(list, tp.topic, tp.partition)!
            if let offset = offsets[tp] { element.pointee.offset = offset }
        }
        return list
    }

    static func make(offsets: [KafkaTopicPartition: Int64]) -> UnsafeMutablePointer<rd_kafka_topic_partition_list_t> {
        make(offsets.keys, offsets: offsets)
    }

    static func elements(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [(KafkaTopicPartition, offset: Int64, err: rd_kafka_resp_err_t)] {
        guard let list, let elems = list.pointee.elems else { return [] }
        return (0..<Int(list.pointee.cnt)).map { i in
            let e = elems[i]
            return (KafkaTopicPartition(topic: String(cString: e.topic), partition: e.partition), e.offset, e.err)
        }
    }

    static func partitions(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [KafkaTopicPartition] {
        elements(list).map(\.0)
    }
}
