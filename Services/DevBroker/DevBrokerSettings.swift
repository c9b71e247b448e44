import HearthConfiguration

/// What the devbroker takes from its environment; everything has a default so that
/// `devbroker` alone gives a usable broker on the conventional port.
struct DevBrokerSettings {
    var brokers: Int
    var port: Int
    var bootstrapFile: String?

    static func fromEnvironment(_ environment: EnvironmentReader = EnvironmentReader()) throws -> DevBrokerSettings {
        do {
            return DevBrokerSettings(
                brokers: try environment.int("HEARTH_DEVBROKER_BROKERS", default: 1, range: 1...9),
                port: try environment.int("HEARTH_KAFKA_PORT", default: 9092, range: 0...65535),
                bootstrapFile: environment.optionalString("HEARTH_DEVBROKER_BOOTSTRAP_FILE"))
        } catch let error as ConfigurationError {
            throw DevBrokerFailure("\(error)")
        }
    }
}
