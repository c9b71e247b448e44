import Foundation

/// What the devbroker takes from its environment; everything has a default so that
/// `devbroker` alone gives a usable broker on the conventional port.
struct DevBrokerSettings {
    var brokers: Int
    var port: Int
    var bootstrapFile: String?

    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DevBrokerSettings {
        let brokers = try integer(environment, "HEARTH_DEVBROKER_BROKERS", default: 1, range: 1...9)
        let port = try integer(environment, "HEARTH_KAFKA_PORT", default: 9092, range: 0...65535)
        let file = environment["HEARTH_DEVBROKER_BOOTSTRAP_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        return DevBrokerSettings(brokers: brokers, port: port, bootstrapFile: file)
    }

    private static func integer(_ environment: [String: String], _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = environment[name], !text.isEmpty else { return value }
        guard let parsed = Int(text), range.contains(parsed) else {
            throw DevBrokerFailure("\(name)=\(text) is not an integer in \(range)")
        }
        return parsed
    }
}
