import CRdKafka
import Logging
import Synchronization

/// What librdkafka's C callbacks need from Swift, reached through the handle's opaque pointer.
/// Retained for the lifetime of the handle and released after `rd_kafka_destroy`.
final class ClientCallbacks: Sendable {
    let logger: Logger
    /// Present on group consumers only.
    let group: ConsumerGroupCoordinator?
    /// The fatal error librdkafka reported, if any: the client can no longer be used.
    let fatalError = Mutex<KafkaError?>(nil)

    init(logger: Logger, group: ConsumerGroupCoordinator? = nil) {
        self.logger = logger
        self.group = group
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> ClientCallbacks? {
        opaque.map { Unmanaged<ClientCallbacks>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Installs logging and error callbacks, and sets `self` as the opaque. The returned
    /// reference must be released (`release()`) once the handle built from `conf` is destroyed.
    func install(on conf: OpaquePointer) -> Unmanaged<ClientCallbacks> {
        let retained = Unmanaged.passRetained(self)
        rd_kafka_conf_set_opaque(conf, retained.toOpaque())
        // Without this librdkafka prints to stderr, bypassing the service's log handler.
        rd_kafka_conf_set_log_cb(conf) { rk, level, facility, buffer in
            guard let rk, let callbacks = ClientCallbacks.from(rd_kafka_opaque(rk)) else { return }
            let text = buffer.map { String(cString: $0) } ?? ""
            let fac = facility.map { String(cString: $0) } ?? ""
            callbacks.logger.log(level: ClientCallbacks.logLevel(syslog: level), "\(text)", metadata: ["rdkafka.facility": "\(fac)"])
        }
        rd_kafka_conf_set_error_cb(conf) { rk, err, reason, opaque in
            guard let callbacks = ClientCallbacks.from(opaque) else { return }
            let error = KafkaError(code: err, message: reason.map { String(cString: $0) })
            if error.isFatal, let rk {
                var errstr = [CChar](repeating: 0, count: 512)
                let code = rd_kafka_fatal_error(rk, &errstr, errstr.count)
                let fatal = KafkaError(code, message: RdKafkaConfig.cString(errstr))
                callbacks.fatalError.withLock { if $0 == nil { $0 = fatal } }
                callbacks.logger.critical("fatal librdkafka error", metadata: ["error": "\(fatal)"])
            } else {
                // Most are transient (broker reconnects); librdkafka retries on its own.
                callbacks.logger.warning("librdkafka error", metadata: ["error": "\(error)"])
            }
        }
        return retained
    }

    static func logLevel(syslog: Int32) -> Logger.Level {
        switch syslog {
        case ...2: .critical
        case 3: .error
        case 4: .warning
        case 5: .notice
        case 6: .info
        default: .debug
        }
    }
}
