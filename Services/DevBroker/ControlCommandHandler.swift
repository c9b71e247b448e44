import CRdKafka
import HearthKafka

/// Carries out `DevBrokerControl` commands against the mock cluster.
struct ControlCommandHandler: Sendable {
    let cluster: MockCluster

    func handle(line: String) -> DevBrokerControl.Reply {
        guard let command = DevBrokerControl.Command(line: line) else {
            return .error("unknown command: \(line.prefix(200))")
        }
        switch command {
        case .createTopic(let name, let partitions):
            // Blocks the event loop for one round trip to the mock thread (well under a
            // millisecond); not worth a thread hop in a development broker.
            let err = cluster.createTopic(name: name, partitions: partitions)
            switch err {
            case RD_KAFKA_RESP_ERR_NO_ERROR: return .ok
            case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS: return .exists
            default: return .error(String(cString: rd_kafka_err2str(err)))
            }
        case .setBrokers(let up):
            let err = cluster.setBrokers(up: up)
            return err == RD_KAFKA_RESP_ERR_NO_ERROR ? .ok : .error(String(cString: rd_kafka_err2str(err)))
        }
    }
}
